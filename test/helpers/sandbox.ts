/** A harness in sandbox mode: the harness's services, the route table with the sandbox's, and a real listener. */
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { issueKey } from "../../src/domain/admin.js";
import { type App, createApp } from "../../src/http/app.js";
import { createHttpServer } from "../../src/http/node.js";
import { ROUTES } from "../../src/routes/index.js";
import { SandboxClock } from "../../src/sandbox/clock.js";
import { createSandbox, JOURNAL_DEFAULT, type Sandbox } from "../../src/sandbox/index.js";
import { type Answer, type Harness, makeHarness, type Send, sendTo } from "./harness.js";

/** A harness whose app runs in sandbox mode, beside the harness's own app (the same services: not in sandbox mode). */
export interface SandboxHarness extends Harness {
  sandbox: Sandbox;
  sandboxApp: App;
  /** Sends through the sandbox's app. */
  sendSandbox(method: string, path: string, opts?: Send): Promise<Answer>;
  /** A key of account A issued at the test clock's time (h.key() issues it at the harness's real time). */
  keyNow(): string;
}

/** Builds a harness with a sandbox app over its services; `journalSize` as `--sandbox-journal`. */
export function makeSandboxHarness(journalSize = JOURNAL_DEFAULT): SandboxHarness {
  // The test clock runs on the harness's ManualClock: its "real time" moves only when a test moves it.
  let clock: SandboxClock | undefined;
  const h = makeHarness({ clock: (manual) => (clock = new SandboxClock(manual)) });
  const sandbox = createSandbox({ journalSize }, h.services, clock as SandboxClock);
  const sandboxApp = createApp(h.services, [...ROUTES, ...sandbox.routes], sandbox.extension);
  const keyNow = () =>
    issueKey(h.services.store, "test", { accountId: h.a.id, name: "test key" }, h.services.clock.now()).secret;
  return {
    ...h,
    sandbox,
    sandboxApp,
    keyNow,
    sendSandbox: (method, path, opts) => sendTo(sandboxApp, method, path, opts),
  };
}

/** The sandbox app on a node:http server on a free loopback port; close() when done. */
export async function listenSandbox(h: SandboxHarness): Promise<{ url: string; server: http.Server }> {
  const server = createHttpServer(h.sandboxApp, h.sandbox.listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
