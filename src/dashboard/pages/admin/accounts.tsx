/**
 * Accounts: each with its plan and rate-limit override, a dialog to change them, and a form to create an account.
 * Only the server operator's administrators may change or create (the server answers 403 admin_required to the
 * others, shown in its words); an administrator of another account sees their own account only.
 */
import { useState } from "preact/hooks";
import { loadAccount } from "../../account.js";
import { api, ok } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { href } from "../../router.js";
import { currentSession } from "../../session.js";
import { Dialog } from "../../ui/dialog.js";
import { ErrorNote } from "../../ui/error-note.js";
import { Field } from "../../ui/field.js";
import { count, date } from "../../ui/format.js";
import { Busy } from "../../ui/page.js";
import { TableWrap } from "../../ui/table-wrap.js";
import { useAction } from "../../ui/use-async.js";
import { usePaged } from "../../ui/use-paged.js";

type Account = components["schemas"]["Account"];
type Plan = Account["plan"];

const PLANS: Plan[] = ["starter", "pro", "business", "agency"];

/** The plan's select; `id` and the rest come from <Field>, which names the control it is given by them. */
function PlanSelect({
  value,
  onChange,
  ...named
}: {
  value: Plan;
  onChange: (plan: Plan) => void;
  id?: string;
  "aria-describedby"?: string;
}) {
  return (
    <select {...named} value={value} onChange={(e) => onChange(e.currentTarget.value as Plan)}>
      {PLANS.map((p) => (
        <option key={p} value={p}>
          {p}
        </option>
      ))}
    </select>
  );
}

/** A limit field's text as the API takes it: empty is null (the plan's), else the whole number typed. */
function limitOf(text: string): number | null {
  return text.trim() === "" ? null : Number(text);
}

function LimitField({ label, value, onInput }: { label: string; value: string; onInput: (text: string) => void }) {
  return (
    <Field label={label} hint="A whole number from 1 to 1,000,000,000; empty: the plan's.">
      <input
        type="number"
        min={1}
        max={1_000_000_000}
        step={1}
        inputMode="numeric"
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
    </Field>
  );
}

/** The dialog that changes one account's plan and overrides (PUT: only what changed is set, and audited). */
function EditAccount({ account, onDone }: { account: Account; onDone: (saved?: Account) => void }) {
  const [plan, setPlan] = useState<Plan>(account.plan);
  const [perMinute, setPerMinute] = useState(account.rate_per_minute?.toString() ?? "");
  const [perHour, setPerHour] = useState(account.rate_per_hour?.toString() ?? "");
  const save = useAction(() =>
    ok(
      api.PUT("/api/v1/admin/accounts/{id}", {
        params: { path: { id: account.id } },
        body: { plan, rate_per_minute: limitOf(perMinute), rate_per_hour: limitOf(perHour) },
      }),
    ),
  );
  return (
    <Dialog open title={`Change ${account.name}`} onClose={() => onDone()}>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const saved = await save.run();
          if (saved) onDone(saved);
        }}
      >
        <Field label="Plan">
          <PlanSelect value={plan} onChange={setPlan} />
        </Field>
        <LimitField label="Requests per key per minute" value={perMinute} onInput={setPerMinute} />
        <LimitField label="Requests per key per hour" value={perHour} onInput={setPerHour} />
        <ErrorNote error={save.error} />
        {save.busy ? <Busy label="Saving…" /> : null}
        <div class="actions">
          <button type="submit" class="primary" disabled={save.busy}>
            Save
          </button>
          <button type="button" onClick={() => onDone()} disabled={save.busy}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function limitText(limit: number | null): string {
  return limit == null ? "plan's" : count(limit);
}

function AccountsTable({ accounts, onEdit }: { accounts: Account[]; onEdit: (a: Account) => void }) {
  return (
    <TableWrap label="Accounts">
      <table>
        <thead>
          <tr>
            <th scope="col">Account</th>
            <th scope="col">Plan</th>
            <th scope="col">Per minute</th>
            <th scope="col">Per hour</th>
            <th scope="col">Created</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {accounts.map((a) => (
            <tr key={a.id} data-account={a.id}>
              <th scope="row">
                {a.name} <span class="muted">#{a.id}</span>
              </th>
              <td>{a.plan}</td>
              <td>{limitText(a.rate_per_minute)}</td>
              <td>{limitText(a.rate_per_hour)}</td>
              <td>{date(a.created_at)}</td>
              <td>
                <div class="row-actions">
                  <button type="button" onClick={() => onEdit(a)} aria-label={`Change ${a.name}`}>
                    Change
                  </button>
                  <a href={href("/admin", { tab: "audit", account: String(a.id) })}>Audit log</a>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function CreateAccount({ onCreated }: { onCreated: (a: Account) => void }) {
  const [name, setName] = useState("");
  const [plan, setPlan] = useState<Plan>("business");
  const create = useAction(() => ok(api.POST("/api/v1/admin/accounts", { body: { name, plan } })));
  return (
    <form
      class="panel"
      onSubmit={async (event) => {
        event.preventDefault();
        const created = await create.run();
        if (!created) return;
        setName("");
        onCreated(created);
      }}
    >
      <h3>New account</h3>
      <p class="hint">Only the server operator's administrators can create accounts. It starts with no users.</p>
      <div class="inline-form">
        <Field label="Name">
          <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field label="Plan">
          <PlanSelect value={plan} onChange={setPlan} />
        </Field>
        <button type="submit" class="primary" disabled={create.busy}>
          Create the account
        </button>
      </div>
      {create.busy ? <Busy label="Creating the account…" /> : null}
      <ErrorNote error={create.error} />
    </form>
  );
}

/**
 * The accounts section: every account with its plan and override, the dialog that changes them, and the form that
 * creates one.
 */
export function AccountsSection() {
  const accounts = usePaged(
    (cursor) => ok(api.GET("/api/v1/admin/accounts", { params: { query: { cursor, limit: 100 } } })),
    [],
  );
  const [editing, setEditing] = useState<Account | null>(null);
  const [said, setSaid] = useState("");
  const done = (saved?: Account) => {
    setEditing(null);
    if (!saved) return;
    setSaid(`${saved.name} saved: plan ${saved.plan}.`);
    accounts.reload();
    // The signed-in account's own plan decides what the other pages offer (the key pages' upgrade prompt).
    if (saved.id === currentSession()?.user.account_id) void loadAccount();
  };
  return (
    <section aria-labelledby="accounts-title">
      <h2 id="accounts-title">Accounts</h2>
      <p role="status" class="success">
        {said}
      </p>
      <ErrorNote error={accounts.error} />
      {accounts.loading && accounts.items.length === 0 ? <Busy label="Reading the accounts…" /> : null}
      <AccountsTable accounts={accounts.items} onEdit={setEditing} />
      {accounts.hasMore ? (
        <button type="button" class="more" onClick={accounts.more} disabled={accounts.loadingMore}>
          More accounts
        </button>
      ) : null}
      {editing ? <EditAccount account={editing} onDone={done} /> : null}
      <CreateAccount
        onCreated={(a) => {
          setSaid(`Account ${a.name} (#${a.id}) created on ${a.plan}.`);
          accounts.reload();
        }}
      />
    </section>
  );
}
