/** The workspace's memories: voice and context notes a generation applies when it names them. */
import { useState } from "preact/hooks";
import { Confirm, Dialog } from "../../ui/dialog.js";
import { ErrorNote } from "../../ui/error-note.js";
import { dateTime } from "../../ui/format.js";
import { Busy } from "../../ui/page.js";
import { useAction, useAsync } from "../../ui/use-async.js";
import { createMemory, deleteMemory, listMemories, type Memory, type MemoryFields, updateMemory } from "./data.js";
import { MemoryForm } from "./memory-form.js";

const EMPTY: MemoryFields = { kind: "voice", title: "", content: "" };

function MemoryList({
  memories,
  onEdit,
  onDelete,
}: {
  memories: Memory[];
  onEdit: (m: Memory) => void;
  onDelete: (m: Memory) => void;
}) {
  if (memories.length === 0) return <p class="muted">No memory yet: add one below.</p>;
  return (
    <ul class="lib-memories">
      {memories.map((m) => (
        <li key={m.id} class="panel" data-memory-id={m.id}>
          <h3>
            <span class="badge">{m.kind}</span> {m.title}
          </h3>
          <p class="lib-memory-text">{m.content}</p>
          <p class="hint">Changed {dateTime(m.updated_at)}</p>
          <div class="actions">
            <button type="button" aria-label={`Edit “${m.title}”`} onClick={() => onEdit(m)}>
              Edit
            </button>
            <button type="button" aria-label={`Delete “${m.title}”`} onClick={() => onDelete(m)}>
              Delete
            </button>
          </div>
        </li>
      ))}
    </ul>
  );
}

/**
 * The memories section of a workspace: the list, the form that adds one, editing and deleting (after a confirmation).
 */
export function MemoriesSection({ workspaceId }: { workspaceId: string | undefined }) {
  const list = useAsync(() => listMemories(workspaceId), [workspaceId]);
  const [editing, setEditing] = useState<Memory | null>(null);
  const [deleting, setDeleting] = useState<Memory | null>(null);
  const create = useAction((fields: MemoryFields) => createMemory(workspaceId, fields));
  const update = useAction((id: number, fields: MemoryFields) => updateMemory(id, fields));
  const remove = useAction((m: Memory) => deleteMemory(m.id));
  const done = (saved: unknown) => {
    if (saved) list.reload();
    return Boolean(saved);
  };
  return (
    <section aria-labelledby="lib-memories">
      <h2 id="lib-memories">Memories</h2>
      <p class="hint">Notes on how to write (voice) and what to know (context), for the generations that name them.</p>
      <ErrorNote error={list.error} />
      {list.loading && !list.data ? <Busy label="Reading the memories…" /> : null}
      {list.data ? <MemoryList memories={list.data} onEdit={setEditing} onDelete={setDeleting} /> : null}
      <div class="panel">
        <h3 class="lib-panel-title">Add a memory</h3>
        <MemoryForm
          initial={EMPTY}
          submitLabel="Add the memory"
          busy={create.busy}
          error={create.error}
          onSubmit={async (fields) => done(await create.run(fields))}
        />
      </div>
      <Dialog open={editing !== null} title={`Edit “${editing?.title ?? ""}”`} onClose={() => setEditing(null)}>
        {editing ? (
          <MemoryForm
            key={editing.id}
            initial={{ kind: editing.kind, title: editing.title, content: editing.content }}
            submitLabel="Save the memory"
            busy={update.busy}
            error={update.error}
            onSubmit={async (fields) => {
              const saved = done(await update.run(editing.id, fields));
              if (saved) setEditing(null);
              return false;
            }}
          >
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </MemoryForm>
        ) : null}
      </Dialog>
      <Confirm
        open={deleting !== null}
        title="Delete this memory?"
        confirmLabel="Delete"
        busy={remove.busy}
        onCancel={() => {
          remove.clear();
          setDeleting(null);
        }}
        onConfirm={async () => {
          if (deleting && done(await remove.run(deleting))) setDeleting(null);
        }}
      >
        <p>“{deleting?.title}” is deleted. Contents written with it keep their text.</p>
        <ErrorNote error={remove.error} />
      </Confirm>
    </section>
  );
}
