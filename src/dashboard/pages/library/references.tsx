/** The workspace's reference materials: the list, adding one, reading one, deleting one (with a confirmation). */
import { useState } from "preact/hooks";
import { Confirm, Dialog } from "../../ui/dialog.js";
import { ErrorNote } from "../../ui/error-note.js";
import { count, dateTime } from "../../ui/format.js";
import { Busy } from "../../ui/page.js";
import { TableWrap } from "../../ui/table-wrap.js";
import { useAction, useAsync } from "../../ui/use-async.js";
import { deleteReference, listReferences, type Reference, sourceLabel } from "./data.js";
import { PasteForm, UploadForm } from "./reference-forms.js";

function ReferenceTable({
  references,
  onView,
  onDelete,
}: {
  references: Reference[];
  onView: (r: Reference) => void;
  onDelete: (r: Reference) => void;
}) {
  if (references.length === 0) return <p class="muted">No reference material yet: paste one or upload a file below.</p>;
  return (
    <TableWrap label="Reference materials" class="lib-refs">
      <table>
        <caption class="visually-hidden">Reference materials</caption>
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Format</th>
            <th scope="col">Words</th>
            <th scope="col">Added</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {references.map((r) => (
            <tr key={r.id}>
              <td>
                <strong>{r.title}</strong>
                <p class="hint lib-excerpt">{r.excerpt}</p>
              </td>
              <td data-label="Format">{sourceLabel(r.source_type)}</td>
              <td data-label="Words">{count(r.word_count)}</td>
              <td data-label="Added">{dateTime(r.created_at)}</td>
              <td>
                <div class="lib-row-actions">
                  <button type="button" aria-label={`View “${r.title}”`} onClick={() => onView(r)}>
                    View
                  </button>
                  <button type="button" aria-label={`Delete “${r.title}”`} onClick={() => onDelete(r)}>
                    Delete
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** The reference-materials section of a workspace: the table, the two forms that add one, reading and deleting one. */
export function ReferencesSection({ workspaceId }: { workspaceId: string | undefined }) {
  const list = useAsync(() => listReferences(workspaceId), [workspaceId]);
  const [viewing, setViewing] = useState<Reference | null>(null);
  const [deleting, setDeleting] = useState<Reference | null>(null);
  const remove = useAction((r: Reference) => deleteReference(r.id));
  return (
    <section aria-labelledby="lib-references">
      <h2 id="lib-references">Reference materials</h2>
      <p class="hint">The facts a generation may draw on and cite when it names them.</p>
      <ErrorNote error={list.error} />
      {list.loading && !list.data ? <Busy label="Reading the reference materials…" /> : null}
      {list.data ? <ReferenceTable references={list.data} onView={setViewing} onDelete={setDeleting} /> : null}
      <div class="lib-forms">
        <PasteForm workspaceId={workspaceId} onAdded={list.reload} />
        <UploadForm workspaceId={workspaceId} onAdded={list.reload} />
      </div>
      <Dialog open={viewing !== null} title={viewing?.title ?? ""} onClose={() => setViewing(null)}>
        <p class="muted">
          {viewing ? sourceLabel(viewing.source_type) : ""} · {count(viewing?.word_count)} words ·{" "}
          {count(viewing?.passage_count)} passages
        </p>
        <pre class="lib-text">{viewing?.content}</pre>
        <button type="button" onClick={() => setViewing(null)}>
          Close
        </button>
      </Dialog>
      <Confirm
        open={deleting !== null}
        title="Delete this reference material?"
        confirmLabel="Delete"
        busy={remove.busy}
        onCancel={() => {
          remove.clear();
          setDeleting(null);
        }}
        onConfirm={async () => {
          if (deleting && (await remove.run(deleting))) {
            setDeleting(null);
            list.reload();
          }
        }}
      >
        <p>
          “{deleting?.title}” and its passages are deleted. Contents generated from it keep their text; it cannot be
          named in a generation again.
        </p>
        <ErrorNote error={remove.error} />
      </Confirm>
    </section>
  );
}
