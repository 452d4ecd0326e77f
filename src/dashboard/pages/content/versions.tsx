/** A content's versions (GET /contents/{id}/versions): each generation and the finalization, one shown at a time. */
import { useState } from "preact/hooks";
import { api, ok } from "../../api/client.js";
import { ErrorNote } from "../../ui/error-note.js";
import { dateTime } from "../../ui/format.js";
import { Busy } from "../../ui/page.js";
import { useAsync } from "../../ui/use-async.js";

/** A content's versions, each viewable as text. */
export function Versions({ contentId, revision }: { contentId: number; revision: number }) {
  const versions = useAsync(
    () =>
      ok(api.GET("/api/v1/contents/{contentId}/versions", { params: { path: { contentId }, query: { limit: 100 } } })),
    [contentId, revision],
  );
  const [shown, setShown] = useState<number | null>(null);
  const list = versions.data?.data ?? [];
  const version = list.find((v) => v.version === shown);
  return (
    <section class="panel" aria-labelledby="versions-heading">
      <h2 id="versions-heading">Versions</h2>
      <ErrorNote error={versions.error} />
      {versions.loading && !versions.data ? <Busy label="Reading the versions" /> : null}
      {versions.data && list.length === 0 ? <p class="muted">No versions yet.</p> : null}
      {list.length > 0 ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Kind</th>
                <th scope="col">Made</th>
                <th scope="col">Text</th>
              </tr>
            </thead>
            <tbody>
              {list.map((v) => (
                <tr key={v.version}>
                  <td>{v.version}</td>
                  <td>{v.kind}</td>
                  <td>{dateTime(v.created_at)}</td>
                  <td>
                    <button
                      type="button"
                      class="link"
                      aria-label={`View version ${v.version}`}
                      aria-pressed={shown === v.version}
                      onClick={() => setShown(v.version)}
                    >
                      View
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {version ? (
        <article aria-label={`Version ${version.version}`}>
          <h3>
            Version {version.version}: {version.title}
          </h3>
          <p class="output-text">{version.text}</p>
        </article>
      ) : null}
    </section>
  );
}
