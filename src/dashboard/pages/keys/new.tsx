/**
 * Issuing an API key (#/keys/new) with exactly the specification's choices (§2): name; scopes, read or read+write;
 * the workspace binding, a specific workspace or all of them, offered only when the account has several (with one,
 * the server binds the key to it); expiration 30, 90 (preselected), 365 days or never. `?scopes=read,write` (the
 * upgrade_action of insufficient_scope) preselects read+write; the form starts again when the address changes. The secret is then shown once (secret.tsx).
 */
import { useState } from "preact/hooks";
import { useAccount, type Workspace } from "../../account.js";
import { api, ok } from "../../api/client.js";
import { href, type PageProps } from "../../router.js";
import { ErrorNote } from "../../ui/error-note.js";
import { Field } from "../../ui/field.js";
import { Busy, Page } from "../../ui/page.js";
import { useAction } from "../../ui/use-async.js";
import { type CreateKeyRequest, DEFAULT_EXPIRY, EXPIRY_CHOICES, type ExpiryChoice } from "./key-rules.js";
import { SecretOnce } from "./secret.js";
import "./keys.css";

/** The binding select's value for "All workspaces" (a workspace id is never empty). */
const ALL_WORKSPACES = "";

/** Read+write when the query asks for it or names no scopes (the specification's default); read alone for ?scopes=read. */
function scopesFromQuery(query: URLSearchParams): "read" | "write" {
  const asked = query.get("scopes");
  if (asked === null) return "write";
  return asked.split(",").includes("write") ? "write" : "read";
}

function ScopeChoice({ value, onChange }: { value: "read" | "write"; onChange: (v: "read" | "write") => void }) {
  return (
    <fieldset>
      <legend>Scopes</legend>
      <label class="choice">
        <input type="radio" name="scopes" checked={value === "read"} onChange={() => onChange("read")} />
        Read: every GET (list, read, search)
      </label>
      <label class="choice">
        <input type="radio" name="scopes" checked={value === "write"} onChange={() => onChange("write")} />
        Read and write: also create, change, delete and generate
      </label>
    </fieldset>
  );
}

function ExpiryChoiceField({ value, onChange }: { value: ExpiryChoice; onChange: (v: ExpiryChoice) => void }) {
  return (
    <fieldset>
      <legend>Expiration</legend>
      {EXPIRY_CHOICES.map((c) => (
        <label class="choice" key={c.value}>
          <input type="radio" name="expires" checked={value === c.value} onChange={() => onChange(c.value)} />
          {c.label}
        </label>
      ))}
    </fieldset>
  );
}

function BindingField({ workspaces, value, onChange }: BindingProps) {
  return (
    <Field label="Workspace binding" hint="A key bound to a workspace reaches that workspace only.">
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value={ALL_WORKSPACES}>All workspaces</option>
        {workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
      </select>
    </Field>
  );
}
interface BindingProps {
  workspaces: Workspace[];
  value: string;
  onChange: (v: string) => void;
}

function KeyForm({ query, onIssued }: { query: URLSearchParams; onIssued: (secret: string, name: string) => void }) {
  const account = useAccount();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState(() => scopesFromQuery(query));
  const [binding, setBinding] = useState(account.workspaceId ?? ALL_WORKSPACES);
  const [expires, setExpires] = useState<ExpiryChoice>(DEFAULT_EXPIRY);
  const several = account.workspaces.length > 1;
  const issue = useAction(async () => {
    const body: CreateKeyRequest = { name, scopes: scopes === "write" ? ["read", "write"] : ["read"], expires };
    // With one workspace the binding is automatic: the server binds the key to it when workspace_id is left out.
    if (several) body.workspace_id = binding === ALL_WORKSPACES ? null : binding;
    const created = await ok(api.POST("/api/v1/api-keys", { body }));
    if (created.key) onIssued(created.key, created.name);
  });
  return (
    <form
      class="panel"
      onSubmit={(e) => {
        e.preventDefault();
        issue.run();
      }}
    >
      <Field label="Name" hint="To tell the key by, such as where it is deployed.">
        <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <ScopeChoice value={scopes} onChange={setScopes} />
      {several ? (
        <BindingField workspaces={account.workspaces} value={binding} onChange={setBinding} />
      ) : (
        <p class="hint">The key will reach the account's one workspace, {account.workspaces[0]?.name ?? ""}.</p>
      )}
      <ExpiryChoiceField value={expires} onChange={setExpires} />
      <ErrorNote error={issue.error} />
      {issue.busy ? <Busy label="Issuing the key…" /> : null}
      <div class="actions">
        <button type="submit" class="primary" disabled={issue.busy}>
          Create the key
        </button>
        <a href={href("/keys")}>Cancel</a>
      </div>
    </form>
  );
}

/** The key form, with the specification's choices (`?scopes=` fills the scopes), and the new secret shown once. */
export function NewKeyPage({ query }: PageProps) {
  const [issued, setIssued] = useState<{ secret: string; name: string } | null>(null);
  return (
    <Page title="New API key">
      {issued ? (
        <>
          <SecretOnce secret={issued.secret} name={issued.name} />
          <p>
            <a href={href("/keys")}>Back to the API keys</a>
          </p>
        </>
      ) : (
        <KeyForm key={query.toString()} query={query} onIssued={(secret, name) => setIssued({ secret, name })} />
      )}
    </Page>
  );
}
