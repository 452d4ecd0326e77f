/**
 * The account's API keys (#/keys): every key with its name, prefix, scopes, binding, dates and status; revoking one
 * (after a confirmation: its requests get 401 from then on) and rotating one as the specification describes (§5):
 * a replacement with the same choices is issued and shown once, and the old key is revoked only when the person
 * says the new one is deployed. Issuing a key is new.tsx.
 */
import { useState } from "preact/hooks";
import { useAccount } from "../../account.js";
import { allPages, api, ok } from "../../api/client.js";
import { href, type PageProps } from "../../router.js";
import { useSession } from "../../session.js";
import { Confirm } from "../../ui/dialog.js";
import { ErrorNote } from "../../ui/error-note.js";
import { dateTime } from "../../ui/format.js";
import { Busy, Page } from "../../ui/page.js";
import { TableWrap } from "../../ui/table-wrap.js";
import { useAction, useAsync } from "../../ui/use-async.js";
import {
  type ApiKey,
  bindingName,
  issuerName,
  keyStatus,
  mayManage,
  reachedLimit,
  replacementOf,
  scopesText,
} from "./key-rules.js";
import { SecretOnce } from "./secret.js";
import "./keys.css";

export { NewKeyPage } from "./new.js";

/** Every key of the account, a page of 100 at a time until the last. */
function listKeys(): Promise<ApiKey[]> {
  return allPages((cursor) => ok(api.GET("/api/v1/api-keys", { params: { query: { limit: 100, cursor } } })));
}

function StatusBadge({ keyRecord }: { keyRecord: ApiKey }) {
  const status = keyStatus(keyRecord);
  return <span class={`badge ${status === "active" ? "ok" : "bad"}`}>{status}</span>;
}

interface RowActions {
  onRevoke(key: ApiKey): void;
  onRotate(key: ApiKey): void;
  busy: boolean;
}

/**
 * A row's buttons stay focusable while a rotation is open (aria-disabled, not disabled): they are what makes the
 * table, scrolled sideways on a narrow screen, reachable by the keyboard. A click on them then does nothing, so that a
 * second rotation cannot replace the secret shown.
 */
function KeyRow({ k, actions }: { k: ApiKey; actions: RowActions }) {
  const account = useAccount();
  const user = useSession().session?.user;
  // A member sees the others' keys without their buttons: the server refuses it their changes (403).
  const active = keyStatus(k) === "active" && mayManage(k, user);
  return (
    <tr>
      <td>{k.name}</td>
      <td>
        <code>{k.prefix}…</code>
      </td>
      <td>{scopesText(k.scopes)}</td>
      <td>{bindingName(k.workspace_id, account.workspaces)}</td>
      <td>{issuerName(k)}</td>
      <td>{dateTime(k.created_at)}</td>
      <td>{k.expires_at ? dateTime(k.expires_at) : "Never"}</td>
      <td>{dateTime(k.last_used_at)}</td>
      <td>
        <StatusBadge keyRecord={k} />
      </td>
      <td>
        {active ? (
          <div class="key-actions">
            <button
              type="button"
              aria-disabled={actions.busy}
              aria-label={`Rotate ${k.name}`}
              onClick={() => !actions.busy && actions.onRotate(k)}
            >
              Rotate
            </button>
            <button
              type="button"
              aria-disabled={actions.busy}
              aria-label={`Revoke ${k.name}`}
              onClick={() => !actions.busy && actions.onRevoke(k)}
            >
              Revoke
            </button>
          </div>
        ) : null}
      </td>
    </tr>
  );
}

function KeyTable({ keys, actions }: { keys: ApiKey[]; actions: RowActions }) {
  if (keys.length === 0) return <p>The account has no API keys yet.</p>;
  return (
    <TableWrap label="API keys">
      <table>
        <thead>
          <tr>
            {[
              "Name",
              "Prefix",
              "Scopes",
              "Workspace",
              "Issued by",
              "Created",
              "Expires",
              "Last used",
              "Status",
              "Actions",
            ].map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <KeyRow key={k.id} k={k} actions={actions} />
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** A rotation under way: the replacement's secret (shown once) and the old key, revoked when the person says so. */
interface Rotation {
  old: ApiKey;
  secret: string;
}

/**
 * The old key's end when the rotation brought it forward (the account was at its cap of active keys: the server
 * lets the replaced key work for a day), else null.
 */
function endBroughtForward(rotation: Rotation, keys: ApiKey[] | undefined): string | null {
  const now = keys?.find((k) => k.id === rotation.old.id);
  return now?.expires_at && now.expires_at !== rotation.old.expires_at ? now.expires_at : null;
}

function RotationPanel({ rotation, keys, onDone }: { rotation: Rotation; keys?: ApiKey[]; onDone: () => void }) {
  const ends = endBroughtForward(rotation, keys);
  const revoke = useAction(async () => {
    await ok(api.DELETE("/api/v1/api-keys/{id}", { params: { path: { id: rotation.old.id } } }));
    onDone();
  });
  return (
    <section class="rotation" aria-label={`Rotating ${rotation.old.name}`}>
      <SecretOnce secret={rotation.secret} name={rotation.old.name} />
      <p>
        The old key ({rotation.old.prefix}…) still works
        {ends ? `, until ${dateTime(ends)} (the account is at its limit of active keys)` : ""}. Put the new key where
        the old one is used, then revoke the old one.
      </p>
      <ErrorNote error={revoke.error} />
      {revoke.busy ? <Busy label="Revoking the old key…" /> : null}
      <div class="actions">
        <button type="button" class="primary" disabled={revoke.busy} onClick={() => revoke.run()}>
          The new key is deployed: revoke the old one
        </button>
      </div>
    </section>
  );
}

/** The account's API keys, with revoke and rotate. */
export function KeysPage(_props: PageProps) {
  const keys = useAsync(listKeys, []);
  const limit = reachedLimit(keys.data ?? [], useAccount().entitlements?.api_keys?.limit);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [rotation, setRotation] = useState<Rotation | null>(null);
  const revoke = useAction(async (key: ApiKey) => {
    await ok(api.DELETE("/api/v1/api-keys/{id}", { params: { path: { id: key.id } } }));
    setRevoking(null);
    keys.reload();
  });
  const rotate = useAction(async (key: ApiKey) => {
    const created = await ok(api.POST("/api/v1/api-keys", { body: replacementOf(key) }));
    if (created.key) setRotation({ old: key, secret: created.key });
    keys.reload();
  });
  const actions: RowActions = {
    onRevoke: (k) => {
      revoke.clear();
      setRevoking(k);
    },
    onRotate: (k) => rotate.run(k),
    busy: rotate.busy || rotation !== null,
  };
  return (
    <Page
      title="API keys"
      actions={
        <a class="button primary" href={href("/keys/new")}>
          New key
        </a>
      }
    >
      {rotation ? (
        <RotationPanel
          rotation={rotation}
          keys={keys.data}
          onDone={() => {
            setRotation(null);
            keys.reload();
          }}
        />
      ) : null}
      <ErrorNote error={rotate.error} />
      {rotate.busy ? <Busy label="Issuing the replacement key…" /> : null}
      <ErrorNote error={keys.error} />
      {limit !== null ? (
        <p class="key-limit" role="status">
          The account has {limit} active keys, its limit: revoke one before issuing another, or ask the administrator of
          the server to raise it.
        </p>
      ) : null}
      {keys.data ? (
        <KeyTable keys={keys.data} actions={actions} />
      ) : keys.loading ? (
        <Busy label="Reading the keys…" />
      ) : null}
      <Confirm
        open={revoking !== null}
        title={`Revoke “${revoking?.name ?? ""}”?`}
        confirmLabel="Revoke the key"
        busy={revoke.busy}
        onConfirm={() => revoking && revoke.run(revoking)}
        onCancel={() => setRevoking(null)}
      >
        <p>
          Every request with this key ({revoking?.prefix}…) will be refused (401) within seconds. This cannot be undone:
          a program that still uses it needs a new key.
        </p>
        <ErrorNote error={revoke.error} />
      </Confirm>
    </Page>
  );
}
