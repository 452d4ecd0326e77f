/**
 * The dashboard's frame: the sign-in page until someone is signed in; then the header (workspace, person, sign-out),
 * the navigation and the page the address names. When the session ends under a page (its token refused), the
 * sign-in dialog opens over the page, which keeps what was typed (session.ts). Above either, in sandbox mode, the
 * sandbox banner (sandbox.tsx).
 */
import { useEffect } from "preact/hooks";
import { chooseWorkspace, hasApiAccess, useAccount } from "./account.js";
import { UpgradePrompt } from "./pages/account/upgrade.js";
import { HOME, PAGES, type PageDef } from "./pages/index.js";
import { SignInForm, SignInPage, signOut } from "./pages/sign-in.js";
import { href, type Location, matchPath, navigate, useLocation } from "./router.js";
import { SandboxBanner } from "./sandbox.js";
import { type Session, useSession } from "./session.js";
import { Dialog } from "./ui/dialog.js";
import { ErrorNote } from "./ui/error-note.js";
import { Busy } from "./ui/page.js";

/** The page the location names, with its parameters. */
function findPage(location: Location): { page: PageDef; params: Record<string, string> } | undefined {
  for (const page of PAGES) {
    const params = matchPath(page.pattern, location.path);
    if (params) return { page, params };
  }
  return undefined;
}

function Header({ session }: { session: Session }) {
  const account = useAccount();
  return (
    <header class="top">
      <a class="brand" href={href(HOME)}>
        content-service
      </a>
      {account.workspaces.length > 1 ? (
        <label class="workspace">
          <span>Workspace</span>
          <select value={account.workspaceId ?? ""} onChange={(e) => chooseWorkspace(e.currentTarget.value)}>
            {account.workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
                {w.is_default ? " (default)" : ""}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <span class="who">
        {session.user.email} · {session.user.role}
      </span>
      <button type="button" onClick={() => signOut()}>
        Sign out
      </button>
    </header>
  );
}

function Navigation({ session, path }: { session: Session; path: string }) {
  const listed = PAGES.filter((p) => p.nav && (!p.admin || session.user.role === "admin"));
  return (
    <nav class="side" aria-label="Pages">
      <ul>
        {listed.map((p) => (
          <li key={p.pattern}>
            <a href={href(p.pattern)} aria-current={path.startsWith(p.pattern) ? "page" : undefined}>
              {p.nav}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The page itself, or what stands in its place: the admin-only refusal, the upgrade prompt, a page not found. */
function Content({ session, location }: { session: Session; location: Location }) {
  const account = useAccount();
  const found = findPage(location);
  useEffect(() => {
    if (location.path === "/") navigate(HOME);
  }, [location.path]);
  if (location.path === "/") return null;
  if (!found) return <p>There is no page at {location.path}.</p>;
  if (found.page.admin && session.user.role !== "admin") return <p>This page is for the account's administrators.</p>;
  if (!found.page.anyPlan) {
    if (!account.entitlements)
      return account.error ? <ErrorNote error={account.error} /> : <Busy label="Reading the plan…" />;
    if (!hasApiAccess(account.entitlements)) return <UpgradePrompt plan={account.entitlements.plan} />;
  }
  const Component = found.page.component;
  return <Component params={found.params} query={location.query} />;
}

/** The whole app: the sign-in page, or the signed-in frame with the page the address names. */
export function App() {
  const { session, expired } = useSession();
  const location = useLocation();
  if (!session)
    return (
      <>
        <SandboxBanner />
        <SignInPage />
      </>
    );
  return (
    <>
      <SandboxBanner />
      <div class="shell">
        <button type="button" class="skip" onClick={() => document.getElementById("main")?.focus()}>
          Skip to the page
        </button>
        <Header session={session} />
        <Navigation session={session} path={location.path} />
        <main id="main" tabIndex={-1}>
          <Content session={session} location={location} />
        </main>
        <Dialog open={expired} title="Your session has ended">
          <p>Sign in again to go on: this page and what you typed are kept.</p>
          <SignInForm email={session.user.email} />
          <button type="button" class="link" onClick={() => signOut()}>
            Sign out instead
          </button>
        </Dialog>
      </div>
    </>
  );
}
