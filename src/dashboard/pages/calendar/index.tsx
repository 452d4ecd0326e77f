/**
 * The editorial calendar (#/calendar?month=YYYY-MM): the workspace's contents on their planned days, a month at a time,
 * and those with no planned day beside it. A move shows the new day only once the server has confirmed it (spec
 * §4.3: "callers announce the change only after a successful response"): while the request runs the item stays
 * where it was, marked as being saved; a refusal leaves it there and is shown.
 */
import "./calendar.css";
import { useEffect, useState } from "preact/hooks";
import { useAccount } from "../../account.js";
import { href, type PageProps } from "../../router.js";
import { ErrorNote } from "../../ui/error-note.js";
import { Busy, Page } from "../../ui/page.js";
import { useAsync } from "../../ui/use-async.js";
import { type Content, listAllContents, scheduleContent } from "./data.js";
import { MonthGrid } from "./grid.js";
import { type Pending, UnplannedList } from "./items.js";
import { addMonths, dayKey, daysIn, type Month, monthKey, monthTitle, parseMonth } from "./month.js";
import { MoveDialog } from "./move-dialog.js";

/** The month's contents and the unplanned ones, with the server's confirmed answers laid over what was read. */
function useCalendar(month: Month, workspaceId: string | null) {
  const ws = workspaceId ?? undefined;
  const from = dayKey(month, 1);
  const to = dayKey(month, daysIn(month));
  const planned = useAsync(() => listAllContents({ workspace_id: ws, planned_from: from, planned_to: to }), [from, ws]);
  const all = useAsync(() => listAllContents({ workspace_id: ws }), [ws]);
  const [confirmed, setConfirmed] = useState<Record<number, Content>>({});
  const merged = new Map<number, Content>();
  for (const c of [...(planned.data ?? []), ...(all.data ?? [])]) merged.set(c.content_id, c);
  for (const c of Object.values(confirmed)) merged.set(c.content_id, c);
  const contents = [...merged.values()];
  const day = (c: Content) => c.scheduled_publish_day;
  return {
    loading: planned.loading || all.loading,
    error: planned.error ?? all.error,
    inMonth: contents.filter((c) => day(c) !== null && day(c)! >= from && day(c)! <= to),
    unplanned: contents.filter((c) => day(c) === null),
    confirm: (c: Content) => setConfirmed((m) => ({ ...m, [c.content_id]: c })),
  };
}

/**
 * Gives the keyboard's focus back to a content's button once its move is settled: while saving, the button is
 * replaced by the saving note, and the focus would be lost to the page. A focus the person put elsewhere is kept.
 */
function useFocusAfterMove() {
  const [settled, setSettled] = useState<{ id: number } | null>(null);
  useEffect(() => {
    if (!settled || (document.activeElement && document.activeElement !== document.body)) return;
    document.querySelector<HTMLButtonElement>(`[data-content-id="${settled.id}"] button`)?.focus();
  }, [settled]);
  return (id: number) => setSettled({ id });
}

/** Moves: the requests running, and the last refusal. */
function useMoves(confirm: (c: Content) => void) {
  const [pending, setPending] = useState<Pending>({});
  const [refusal, setRefusal] = useState<{ title: string; error: unknown } | null>(null);
  const settle = useFocusAfterMove();
  const move = async (content: Content, day: string | null) => {
    setRefusal(null);
    setPending((p) => ({ ...p, [content.content_id]: day }));
    try {
      confirm(await scheduleContent(content.content_id, day));
    } catch (error) {
      setRefusal({ title: content.title || `Untitled content ${content.content_id}`, error });
    } finally {
      setPending(({ [content.content_id]: _, ...rest }) => rest);
      settle(content.content_id);
    }
  };
  return { pending, refusal, move };
}

function MonthNavigation({ month }: { month: Month }) {
  return (
    <nav class="cal-nav" aria-label="Months">
      <a class="button" href={href("/calendar", { month: monthKey(addMonths(month, -1)) })}>
        ← Previous month
      </a>
      <h2 aria-live="polite">{monthTitle(month)}</h2>
      <a class="button" href={href("/calendar", { month: monthKey(addMonths(month, 1)) })}>
        Next month →
      </a>
    </nav>
  );
}

/** The Calendar page (#/calendar?month=YYYY-MM) of the current workspace. */
export function CalendarPage(props: PageProps) {
  const { workspaceId } = useAccount();
  // A workspace of its own each: the confirmed moves of one never show in another.
  return <WorkspaceCalendar key={workspaceId ?? ""} workspaceId={workspaceId} {...props} />;
}

function WorkspaceCalendar({ query, workspaceId }: PageProps & { workspaceId: string | null }) {
  const month = parseMonth(query.get("month"));
  const calendar = useCalendar(month, workspaceId);
  const moves = useMoves(calendar.confirm);
  const [moving, setMoving] = useState<Content | null>(null);
  return (
    <Page title="Calendar" actions={<a href={href("/calendar")}>This month</a>}>
      <MonthNavigation month={month} />
      {moves.refusal ? (
        <div>
          <p>The planned day of “{moves.refusal.title}” was not changed:</p>
          <ErrorNote error={moves.refusal.error} />
        </div>
      ) : null}
      <ErrorNote error={calendar.error} />
      {calendar.loading ? <Busy label="Reading the plan…" /> : null}
      <div class="cal-layout">
        <MonthGrid month={month} contents={calendar.inMonth} pending={moves.pending} onMove={setMoving} />
        <UnplannedList contents={calendar.unplanned} pending={moves.pending} onMove={setMoving} />
      </div>
      <MoveDialog
        content={moving}
        suggestedDay={dayKey(month, 1)}
        onClose={() => setMoving(null)}
        onSave={(content, day) => {
          setMoving(null);
          moves.move(content, day);
        }}
      />
    </Page>
  );
}
