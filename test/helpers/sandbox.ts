/** A harness in sandbox mode: the harness's services, the route table with the sandbox's, and a real listener. */

import { mkdtempSync, rmSync } from "node:fs";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { issueKey } from "../../src/domain/admin.js";
import { type App, createApp } from "../../src/http/app.js";
import { createHttpServer } from "../../src/http/node.js";
import { ROUTES } from "../../src/routes/index.js";
import { SandboxClock } from "../../src/sandbox/clock.js";
import type { Fixture } from "../../src/sandbox/fixtures-schema.js";
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
  const { h, clock } = clockedHarness();
  const sandbox = createSandbox({ journalSize }, h.services, clock);
  const sandboxApp = sandbox.wrap(createApp(h.services, [...ROUTES, ...sandbox.routes], sandbox.extension));
  return {
    ...h,
    sandbox,
    sandboxApp,
    keyNow: keyNowOf(h),
    sendSandbox: (method, path, opts) => sendTo(sandboxApp, method, path, opts),
  };
}

/** Issues a key of account A at the services' clock's time (the harness's own key() stamps the ManualClock's). */
function keyNowOf(h: Harness): () => string {
  return () =>
    issueKey(h.services.store, "test", { accountId: h.a.id, name: "test key" }, h.services.clock.now()).secret;
}

/** A harness whose services' clock is a test clock on the harness's ManualClock ("real time" moves when a test moves it). */
function clockedHarness(dataDir?: string): { h: Harness; clock: SandboxClock } {
  let clock: SandboxClock | undefined;
  const h = makeHarness({ dataDir, clock: (manual) => (clock = new SandboxClock(manual)) });
  return { h, clock: clock as SandboxClock };
}

/** A sandbox harness over a database file, with known states (resets, snapshots) and a key of the start's state. */
export interface StatesHarness extends SandboxHarness {
  /** A key of account A issued before the start's state was taken: a reset keeps it. */
  startKey: string;
  dataDir: string;
}

/** The harness over a database file in a new folder; the start's state taken once `startKey` is issued. */
export function makeStatesHarness(): StatesHarness {
  const dataDir = mkdtempSync(path.join(tmpdir(), "cs-states-"));
  const { h, clock } = clockedHarness(dataDir);
  const startKey = h.key();
  const sandbox = createSandbox({ journalSize: JOURNAL_DEFAULT }, h.services, clock, {
    db: h.db,
    dir: path.join(dataDir, "sandbox"),
  });
  sandbox.states?.takeStart();
  const sandboxApp = sandbox.wrap(createApp(h.services, [...ROUTES, ...sandbox.routes], sandbox.extension));
  const sendSandbox: SandboxHarness["sendSandbox"] = (method, p, opts) => sendTo(sandboxApp, method, p, opts);
  return { ...h, sandbox, sandboxApp, sendSandbox, keyNow: keyNowOf(h), startKey, dataDir };
}

/** A sandbox harness over a database file that starts as `serve --sandbox --fixtures` does: the fixture loaded. */
export async function makeFixtureHarness(fixtures: Fixture): Promise<Omit<StatesHarness, "startKey">> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "cs-fixtures-"));
  const { h, clock } = clockedHarness(dataDir);
  const sandbox = createSandbox({ journalSize: JOURNAL_DEFAULT, fixtures }, h.services, clock, {
    db: h.db,
    dir: path.join(dataDir, "sandbox"),
  });
  const app = createApp(h.services, [...ROUTES, ...sandbox.routes], sandbox.extension);
  sandbox.loaded = await sandbox.start(app);
  const sandboxApp = sandbox.wrap(app);
  const sendSandbox: SandboxHarness["sendSandbox"] = (method, p, opts) => sendTo(sandboxApp, method, p, opts);
  return { ...h, sandbox, sandboxApp, sendSandbox, keyNow: keyNowOf(h), dataDir };
}

/** The sandbox app on a node:http server on a free loopback port; close() when done. */
export async function listenSandbox(h: SandboxHarness): Promise<{ url: string; server: http.Server }> {
  const server = createHttpServer(h.sandboxApp, h.sandbox.listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A harness over a database file in a folder of its own. */
interface FileHarness {
  dataDir: string;
  db: { close(): void };
}

/** Registers an afterEach that closes every harness given to the returned function and removes its folder. */
export function removedAfterEach(): <H extends FileHarness>(h: H) => H {
  const made: FileHarness[] = [];
  afterEach(() => {
    for (const h of made.splice(0)) {
      h.db.close();
      rmSync(h.dataDir, { recursive: true, force: true });
    }
  });
  return (h) => {
    made.push(h);
    return h;
  };
}
