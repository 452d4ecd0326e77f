/** Signing in (POST /auth/login) and out (POST /auth/logout, which ends the session on the server too). */
import { useState } from "preact/hooks";
import { clearAccount, loadAccount } from "../account.js";
import { ok, publicApi } from "../api/client.js";
import { endSession, sessionToken, startSession } from "../session.js";
import { ErrorNote } from "../ui/error-note.js";
import { Field } from "../ui/field.js";
import { useAction } from "../ui/use-async.js";

/** The sign-in form; `email` fills its first field (signing in again after the session ended). */
export function SignInForm({ email: given = "", onSignedIn }: { email?: string; onSignedIn?: () => void }) {
  const [email, setEmail] = useState(given);
  const [password, setPassword] = useState("");
  const signIn = useAction(async () => {
    const answer = await ok(publicApi.POST("/api/v1/auth/login", { body: { email, password } }));
    startSession({ token: answer.token, expiresAt: answer.expires_at, user: answer.user });
    setPassword("");
    await loadAccount();
    onSignedIn?.();
  });
  return (
    <form
      class="sign-in"
      onSubmit={(event) => {
        event.preventDefault();
        signIn.run();
      }}
    >
      <Field label="Email">
        <input
          type="email"
          name="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
      </Field>
      <Field label="Password">
        <input
          type="password"
          name="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </Field>
      <ErrorNote error={signIn.error} />
      <button type="submit" class="primary" disabled={signIn.busy}>
        {signIn.busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}

/** The page shown to a person not signed in, whatever page the address names (it opens once they are in). */
export function SignInPage() {
  return (
    <main class="sign-in-page" id="main">
      <h1>Sign in to content-service</h1>
      <SignInForm />
      <p class="hint">
        The first start printed the admin login; an administrator adds people with{" "}
        <code>content-service users create</code>.
      </p>
    </main>
  );
}

/**
 * Signs out on the server (the token is refused from then on), then forgets the session here, even when the server
 * cannot be reached. It goes without the session's retry: an ended session's 401 must not ask to sign in again.
 */
export async function signOut(): Promise<void> {
  const token = sessionToken();
  try {
    if (token) await publicApi.POST("/api/v1/auth/logout", { headers: { authorization: `Bearer ${token}` } });
  } catch {
    // Unreachable: the token is forgotten here all the same, and ends at its expiry.
  } finally {
    endSession();
    clearAccount();
  }
}
