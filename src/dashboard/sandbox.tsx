/**
 * The sandbox banner: a server in sandbox mode (`serve --sandbox`, docs/sandbox.md) marks every answer
 * `X-Sandbox: 1`, and the dashboard says so above every page, the sign-in page included, so that no one takes its
 * data or its faults for a real server's. Learnt from the first answer (GET /healthz, at load) and kept current by
 * every API answer after. Held by test/browser/dashboard/sandbox.test.ts.
 */
import type { Middleware } from "openapi-fetch";
import { createStore } from "./store.js";

const store = createStore({ sandbox: false });

/** Notes whether an answer came from a server in sandbox mode. */
function noteSandbox(response: Response): void {
  const sandbox = response.headers.get("x-sandbox") === "1";
  if (sandbox !== store.get().sandbox) store.update({ sandbox });
}

/** The API clients' middleware that reads the mark of every answer. */
export const sandboxMarks: Middleware = {
  onResponse({ response }) {
    noteSandbox(response);
    return response;
  },
};

/** Asks the server once, at load, so that the banner is there before anyone signs in. */
export function watchSandbox(base: string): void {
  fetch(`${base}/healthz`).then(noteSandbox, () => {});
}

/** The banner, when the server is in sandbox mode. */
export function SandboxBanner() {
  const { sandbox } = store.use();
  if (!sandbox) return null;
  return (
    <div class="sandbox-banner" role="status">
      <strong>Sandbox mode</strong>: a server for tests; its data, its time and its answers may be made up.
    </div>
  );
}
