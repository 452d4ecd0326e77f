/**
 * The administration page (admin role only; app.tsx refuses it to members): accounts with their plans and rate-limit
 * overrides, users, and the audit log, one section at a time. The sections are links (`#/admin?tab=users`), so that
 * the keyboard, the back button and a bookmark all reach them.
 */
import { href, type PageProps } from "../../router.js";
import { Page } from "../../ui/page.js";
import { AccountsSection } from "./accounts.js";
import { AuditSection } from "./audit.js";
import { UsersSection } from "./users.js";
import "./admin.css";

const SECTIONS = [
  { tab: "accounts", label: "Accounts" },
  { tab: "users", label: "Users" },
  { tab: "audit", label: "Audit log" },
] as const;

/** The Admin page (#/admin): the tab links, and the section the address's `tab` names (accounts by default). */
export function AdminPage({ query }: PageProps) {
  const tab = SECTIONS.find((s) => s.tab === query.get("tab"))?.tab ?? "accounts";
  return (
    <Page title="Admin">
      <nav class="admin-tabs" aria-label="Admin sections">
        {SECTIONS.map((s) => (
          <a key={s.tab} href={href("/admin", { tab: s.tab })} aria-current={s.tab === tab ? "page" : undefined}>
            {s.label}
          </a>
        ))}
      </nav>
      {tab === "accounts" ? <AccountsSection /> : null}
      {tab === "users" ? <UsersSection /> : null}
      {tab === "audit" ? <AuditSection account={query.get("account")} /> : null}
    </Page>
  );
}
