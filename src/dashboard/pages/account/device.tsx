/**
 * Approving a command-line sign-in (#/device; /device?user_code=… redirects here): the signed-in person types the
 * code the program shows, or finds it filled in from the address, and approves it (POST /auth/device/approve). The
 * program's next poll then signs it in as this person. A person not signed in meets the sign-in page first; the
 * address, and so the code, is kept through it (app.tsx).
 */
import { useState } from "preact/hooks";
import { api, ok } from "../../api/client.js";
import type { PageProps } from "../../router.js";
import { useSession } from "../../session.js";
import { ErrorNote } from "../../ui/error-note.js";
import { Field } from "../../ui/field.js";
import { Busy, Page } from "../../ui/page.js";
import { useAction } from "../../ui/use-async.js";
import "./account.css";

/** The approval form of a command-line sign-in (the device flow's verification_uri), its code from the address. */
export function DevicePage({ query }: PageProps) {
  const { session } = useSession();
  const linked = query.get("user_code");
  const [code, setCode] = useState(linked ?? "");
  const [approved, setApproved] = useState(false);
  const approve = useAction(async () => {
    await ok(api.POST("/api/v1/auth/device/approve", { body: { user_code: code.trim() } }));
    setApproved(true);
  });
  if (approved)
    return (
      <Page title="Command-line sign-in">
        <div class="panel account-panel success-panel" role="status">
          <h2>Approved</h2>
          <p>
            The program is signed in as {session?.user.email}. You can go back to the program: it goes on by itself
            within a few seconds.
          </p>
        </div>
      </Page>
    );
  return (
    <Page title="Command-line sign-in">
      <form
        class="panel account-panel device-form"
        onSubmit={(e) => {
          e.preventDefault();
          approve.run();
        }}
      >
        <p>
          A program (the command line, a build job) asks to sign in as you, {session?.user.email}. Approve it only if
          you started it and the code below is the one it shows.
        </p>
        {linked ? (
          <p class="notice">
            This code came filled in by the link you opened. Someone who sends you such a link gets a session as you if
            you approve it: approve only a sign-in you started yourself, in a program that shows this same code.
          </p>
        ) : null}
        <Field label="Code shown by the program" hint="Eight letters, such as BCDF-GHJK.">
          <input
            required
            autoComplete="off"
            spellcheck={false}
            maxLength={9}
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
        </Field>
        <ErrorNote error={approve.error} />
        {approve.busy ? <Busy label="Approving…" /> : null}
        <div class="actions">
          <button type="submit" class="primary" disabled={approve.busy}>
            Approve the sign-in
          </button>
        </div>
      </form>
    </Page>
  );
}
