/**
 * The content list (#/contents): the current workspace's contents, oldest first as the server lists them, filtered by
 * status on the server and by a search of the titles and texts on the pages read (GET /contents has no text search),
 * a page of 50 at a time.
 */
import { useState } from "preact/hooks";
import { useAccount } from "../../account.js";
import { api, ok } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { href } from "../../router.js";
import { ErrorNote } from "../../ui/error-note.js";
import { Field } from "../../ui/field.js";
import { dateTime } from "../../ui/format.js";
import { Busy, Page } from "../../ui/page.js";
import { usePaged } from "../../ui/use-paged.js";
import "./content.css";

type Content = components["schemas"]["Content"];
/** A content's status in its lifecycle. */
export type ContentStatus = Content["status"];
/** The statuses, in lifecycle order, for the list's filter. */
export const STATUSES: ContentStatus[] = ["draft", "generated", "finalized", "published"];

/** Reads a page of the workspace's contents in a status (all for none), after a cursor. */
async function readPage(workspaceId: string, status: ContentStatus | "", cursor?: string) {
  return ok(
    api.GET("/api/v1/contents", {
      params: { query: { workspace_id: workspaceId, limit: 50, cursor, ...(status ? { status } : {}) } },
    }),
  );
}

/** Whether a content's title or text holds the search words (case folded). */
function matches(content: Content, search: string): boolean {
  const wanted = search.trim().toLowerCase();
  if (!wanted) return true;
  return `${content.title}\n${content.content}`.toLowerCase().includes(wanted);
}

/** A content's status as a badge. */
export function StatusBadge({ status }: { status: ContentStatus }) {
  const tone = status === "published" || status === "finalized" ? "badge ok" : "badge";
  return <span class={tone}>{status}</span>;
}

function ContentRows({ rows }: { rows: Content[] }) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Status</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <tr key={c.content_id}>
              <td>
                <a href={href(`/contents/${c.content_id}`)}>{c.title || `Untitled #${c.content_id}`}</a>
              </td>
              <td>
                <StatusBadge status={c.status} />
              </td>
              <td>{dateTime(c.updated_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Filters(props: {
  status: ContentStatus | "";
  search: string;
  onStatus: (s: ContentStatus | "") => void;
  onSearch: (s: string) => void;
}) {
  return (
    <div class="panel content-filters">
      <Field label="Status">
        <select
          value={props.status}
          onChange={(e) => props.onStatus((e.target as HTMLSelectElement).value as ContentStatus | "")}
        >
          <option value="">All</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Search" hint="Searches the titles and texts listed.">
        <input
          type="search"
          value={props.search}
          onInput={(e) => props.onSearch((e.target as HTMLInputElement).value)}
        />
      </Field>
    </div>
  );
}

/** The workspace's contents, filtered by status or text, each opening in the editor. */
export function ContentsPage() {
  const { workspaceId } = useAccount();
  const [status, setStatus] = useState<ContentStatus | "">("");
  const [search, setSearch] = useState("");
  const list = usePaged(
    (cursor) =>
      workspaceId
        ? readPage(workspaceId, status, cursor)
        : Promise.resolve({ data: [], has_more: false, next_cursor: null }),
    [workspaceId, status],
  );
  const rows = list.items;
  const shown = rows.filter((c) => matches(c, search));
  return (
    <Page
      title="Content"
      actions={
        <a class="button primary" href={href("/contents/new")}>
          New content
        </a>
      }
    >
      <Filters status={status} search={search} onStatus={setStatus} onSearch={setSearch} />
      <ErrorNote error={list.error} />
      {list.loading ? <Busy label="Reading the contents" /> : null}
      {!list.loading && shown.length === 0 ? <p class="muted">No contents match.</p> : null}
      {shown.length > 0 ? <ContentRows rows={shown} /> : null}
      {list.hasMore ? (
        <div class="actions">
          <button type="button" disabled={list.loadingMore} onClick={list.more}>
            Show more
          </button>
        </div>
      ) : null}
    </Page>
  );
}
