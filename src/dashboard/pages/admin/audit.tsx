/**
 * The audit log of one account (the signed-in admin's own unless another is named, `#/admin?tab=audit&account=2`):
 * who changed what and when, newest first, older entries a page at a time. Details are shown as JSON text, never as
 * markup (they hold what people named things).
 */
import { useState } from "preact/hooks";
import { api, ok } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { href, navigate } from "../../router.js";
import { ErrorNote } from "../../ui/error-note.js";
import { Field } from "../../ui/field.js";
import { dateTime } from "../../ui/format.js";
import { Busy } from "../../ui/page.js";
import { TableWrap } from "../../ui/table-wrap.js";
import { usePaged } from "../../ui/use-paged.js";

type Entry = components["schemas"]["AuditLogEntry"];

function detailsText(details: unknown): string {
  return details == null ? "" : JSON.stringify(details, null, 1);
}

function AuditTable({ entries }: { entries: Entry[] }) {
  if (entries.length === 0) return <p class="muted">No change has been logged in this account.</p>;
  return (
    <TableWrap label="Audit log">
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Record</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.id} data-entry={e.id}>
              <td>{dateTime(e.created_at)}</td>
              <td class="mono">{e.actor}</td>
              <th scope="row" class="mono">
                {e.action}
              </th>
              <td class="mono">{e.target ?? "—"}</td>
              <td>
                <pre class="admin-details mono">{detailsText(e.details)}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function AccountChooser({ account }: { account: string }) {
  const [value, setValue] = useState(account);
  return (
    <form
      class="inline-form"
      onSubmit={(event) => {
        event.preventDefault();
        navigate("/admin", value ? { tab: "audit", account: value } : { tab: "audit" });
      }}
    >
      <Field label="Account id (empty: your own)">
        <input type="number" min={1} value={value} onInput={(e) => setValue(e.currentTarget.value)} />
      </Field>
      <button type="submit">Show its log</button>
    </form>
  );
}

/**
 * The audit-log section of `account` (an id from the address; the admin's own account for none), older entries on
 * request.
 */
export function AuditSection({ account }: { account: string | null }) {
  const accountId = account && /^[1-9]\d*$/.test(account) ? Number(account) : undefined;
  const log = usePaged(
    (cursor) =>
      ok(api.GET("/api/v1/admin/audit-log", { params: { query: { cursor, limit: 50, account_id: accountId } } })),
    [accountId],
  );
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log{accountId ? ` of account #${accountId}` : " of your account"}</h2>
      <AccountChooser key={account ?? ""} account={accountId ? String(accountId) : ""} />
      <ErrorNote error={log.error} />
      {log.error && accountId ? <a href={href("/admin", { tab: "audit" })}>Show your own account's log</a> : null}
      {log.loading ? <Busy label="Reading the audit log…" /> : null}
      {!log.loading && !log.error ? <AuditTable entries={log.items} /> : null}
      {log.hasMore ? (
        <button type="button" class="more" onClick={log.more} disabled={log.loadingMore}>
          Older entries
        </button>
      ) : null}
      {log.loadingMore ? <Busy label="Reading older entries…" /> : null}
    </section>
  );
}
