/**
 * The account's workspaces (#/workspaces): list, create, rename, make default and delete. A delete removes the
 * workspace's records and the keys bound to it for good, and the server refuses it for the default workspace while
 * others exist (409); the confirmation says so first. After each change the account is read again (loadAccount), so
 * that the header's workspace choice follows.
 */
import { useState } from "preact/hooks";
import { loadAccount, type Workspace } from "../../account.js";
import { allPages, api, ok } from "../../api/client.js";
import type { PageProps } from "../../router.js";
import { Confirm } from "../../ui/dialog.js";
import { ErrorNote } from "../../ui/error-note.js";
import { Field } from "../../ui/field.js";
import { dateTime } from "../../ui/format.js";
import { Busy, Page } from "../../ui/page.js";
import { TableWrap } from "../../ui/table-wrap.js";
import { useAction, useAsync } from "../../ui/use-async.js";
import "./account.css";

/** Every workspace of the account, a page of 100 at a time until the last. */
function listWorkspaces(): Promise<Workspace[]> {
  return allPages((cursor) => ok(api.GET("/api/v1/workspaces", { params: { query: { limit: 100, cursor } } })));
}

function CreateForm({ onChanged }: { onChanged: () => Promise<void> }) {
  const [name, setName] = useState("");
  const create = useAction(async () => {
    await ok(api.POST("/api/v1/workspaces", { body: { name } }));
    setName("");
    await onChanged();
  });
  return (
    <form
      class="panel account-panel workspace-new"
      onSubmit={(e) => {
        e.preventDefault();
        create.run();
      }}
    >
      <h2>New workspace</h2>
      <Field label="Name of the new workspace">
        <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <ErrorNote error={create.error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={create.busy}>
          Create the workspace
        </button>
      </div>
    </form>
  );
}

interface RowProps {
  w: Workspace;
  onChanged: () => Promise<void>;
  onDelete: (w: Workspace) => void;
}

function WorkspaceRow({ w, onChanged, onDelete }: RowProps) {
  const [name, setName] = useState(w.name);
  const change = useAction(async (body: { name?: string; is_default?: boolean }) => {
    await ok(api.PUT("/api/v1/workspaces/{workspaceId}", { params: { path: { workspaceId: w.id } }, body }));
    await onChanged();
  });
  return (
    <tr>
      <td>
        <form
          class="workspace-rename"
          onSubmit={(e) => {
            e.preventDefault();
            change.run({ name });
          }}
        >
          <input
            aria-label={`Name of ${w.name}`}
            required
            maxLength={100}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <button type="submit" disabled={change.busy || name.trim() === w.name} aria-label={`Rename ${w.name}`}>
            Rename
          </button>
        </form>
        <ErrorNote error={change.error} />
      </td>
      <td data-label="Default">{w.is_default ? <span class="badge ok">default</span> : "no"}</td>
      <td data-label="Created">{dateTime(w.created_at)}</td>
      <td>
        <div class="workspace-actions">
          {w.is_default ? null : (
            <button
              type="button"
              disabled={change.busy}
              aria-label={`Make default: ${w.name}`}
              onClick={() => change.run({ is_default: true })}
            >
              Make default
            </button>
          )}
          <button type="button" aria-label={`Delete ${w.name}`} onClick={() => onDelete(w)}>
            Delete
          </button>
        </div>
      </td>
    </tr>
  );
}

function DeleteConfirm({ target, onDone, onCancel }: DeleteProps) {
  const remove = useAction(async (w: Workspace) => {
    await ok(api.DELETE("/api/v1/workspaces/{workspaceId}", { params: { path: { workspaceId: w.id } } }));
    await onDone();
  });
  return (
    <Confirm
      open={target !== null}
      title={`Delete “${target?.name ?? ""}”?`}
      confirmLabel="Delete the workspace and everything in it"
      busy={remove.busy}
      onConfirm={() => target && remove.run(target)}
      onCancel={() => {
        remove.clear();
        onCancel();
      }}
    >
      <p>
        This deletes, for good: its reference materials, memories, contents and their versions, conversions, images and
        knowledge graph, and the API keys bound to it (their requests get 401 from then on).
      </p>
      {target?.is_default ? (
        <p class="notice">
          This is the default workspace: it cannot be deleted while the account has others. Make another one the default
          first.
        </p>
      ) : null}
      <ErrorNote error={remove.error} />
    </Confirm>
  );
}
interface DeleteProps {
  target: Workspace | null;
  onDone: () => Promise<void>;
  onCancel: () => void;
}

/** The account's workspaces: list, create, rename, make default and delete. */
export function WorkspacesPage(_props: PageProps) {
  const workspaces = useAsync(listWorkspaces, []);
  const [deleting, setDeleting] = useState<Workspace | null>(null);
  // The list here and the header's choice both follow a change.
  const changed = async () => {
    workspaces.reload();
    await loadAccount();
  };
  return (
    <Page title="Workspaces">
      <ErrorNote error={workspaces.error} />
      {workspaces.data ? (
        <TableWrap label="Workspaces">
          <table class="workspace-table" aria-label="The account's workspaces">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Default</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {workspaces.data.map((w) => (
                <WorkspaceRow key={`${w.id}|${w.name}`} w={w} onChanged={changed} onDelete={setDeleting} />
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : (
        <Busy label="Reading the workspaces…" />
      )}
      <CreateForm onChanged={changed} />
      <DeleteConfirm
        target={deleting}
        onDone={async () => {
          setDeleting(null);
          await changed();
        }}
        onCancel={() => setDeleting(null)}
      />
    </Page>
  );
}
