/** A content as the calendar shows it: title, status, overdue (in words), and the move that is being saved. */
import { href } from "../../router.js";
import type { Content } from "./data.js";

/** A move waiting for the server's answer: the day asked for (null: the planned day removed). */
export type Pending = Record<number, string | null>;

/**
 * One content on the calendar: its title (a link to it), status, overdue mark, the move being saved, and its Move
 * button.
 */
export function ContentItem({
  content,
  pending,
  onMove,
}: {
  content: Content;
  pending: Pending;
  onMove: (content: Content) => void;
}) {
  const saving = content.content_id in pending;
  const target = pending[content.content_id];
  const title = content.title || `Untitled content ${content.content_id}`;
  return (
    <div class="cal-item" data-content-id={content.content_id}>
      <a href={href(`/contents/${content.content_id}`)}>{title}</a>
      <div class="cal-badges">
        <span class="badge">{content.status}</span>
        {content.is_overdue ? <span class="badge bad">Overdue</span> : null}
      </div>
      {saving ? (
        <p class="hint" role="status">
          {target ? `Saving the move to ${target}…` : "Saving: no planned day…"}
        </p>
      ) : (
        <button
          type="button"
          class="link"
          aria-label={`${content.scheduled_publish_day ? "Move" : "Plan a day for"} “${title}”`}
          onClick={() => onMove(content)}
        >
          {content.scheduled_publish_day ? "Move" : "Plan a day"}
        </button>
      )}
    </div>
  );
}

/** The contents with no planned day, each of which can be given one. */
export function UnplannedList({
  contents,
  pending,
  onMove,
}: {
  contents: Content[];
  pending: Pending;
  onMove: (content: Content) => void;
}) {
  return (
    <aside class="panel cal-unplanned" aria-labelledby="cal-unplanned-title">
      <h2 id="cal-unplanned-title">Not planned yet</h2>
      {contents.length === 0 ? (
        <p class="muted">Every content of this workspace has a planned day.</p>
      ) : (
        <ul>
          {contents.map((c) => (
            <li key={c.content_id}>
              <ContentItem content={c} pending={pending} onMove={onMove} />
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
