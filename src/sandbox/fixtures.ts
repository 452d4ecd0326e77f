/**
 * Loads a fixture (fixtures-schema.ts) into a server's database: accounts, workspaces, users and keys through the
 * administrative functions the command line uses (domain/admin.ts), and the records of each account through the API's
 * own operations (the request that creates each, sent to the app in process), so that a fixture follows every rule
 * the API follows: nothing is stored that a client could not have made. Held by test/sandbox/fixtures.test.ts.
 *
 * The records are created with a key of the account named `fixtures`, revoked once they are in (it stays in the
 * account's list of keys, revoked), and without the rate limit (each request has full buckets): a fixture is not a
 * client.
 */
import { createHash } from "node:crypto";
import type { Store } from "../db/store.js";
import type { WorkspaceRow } from "../db/workspaces.js";
import { createAccount, createUser, createWorkspace, issueKey, revokeKey, updateWorkspace } from "../domain/admin.js";
import { hashKey } from "../domain/apikeys.js";
import { hashPassword } from "../domain/passwords.js";
import type { App } from "../http/app.js";
import type { Services } from "../http/context.js";
import { RateLimiter } from "../http/ratelimit.js";
import type { Fixture, FixtureAccountInput, FixtureWorkspaceInput } from "./fixtures-schema.js";

/** The audit log's actor of what a fixture made. */
const ACTOR = "fixtures";

/** A fixture that cannot be loaded: the JSON path of the part at fault and why. */
export class FixtureError extends Error {
  constructor(
    readonly at: string,
    readonly reason: string,
  ) {
    super(`${at}: ${reason}`);
  }
}

/** What a fixture made, for the start banner and init's output. */
export interface LoadedFixture {
  accounts: { id: number; name: string; workspaces: { id: string; name: string }[]; keys: number }[];
}

/** The records of a workspace, as a fixture gives them. */
export type FixtureRecords = Omit<FixtureWorkspaceInput, "name">;

/**
 * Loads `fixture` unless this data directory holds it already (a sandbox started again on the same folder: its keys
 * exist, and the records are there, as the last run left them); undefined then.
 */
export async function loadFixtureOnce(
  app: App,
  services: Services,
  fixture: Fixture,
): Promise<LoadedFixture | undefined> {
  const mark = `sandbox_fixture_${createHash("sha256").update(JSON.stringify(fixture)).digest("hex")}`;
  if (services.store.misc.setting(mark) !== undefined) return undefined;
  const loaded = await loadFixture(app, services, fixture);
  services.store.misc.settingOnce(mark, new Date(services.clock.now()).toISOString());
  return loaded;
}

/** Loads every account of `fixture`; the first part that fails stops it with a FixtureError. */
export async function loadFixture(app: App, services: Services, fixture: Fixture): Promise<LoadedFixture> {
  refuseRepeatedKeys(services.store, fixture);
  const loaded: LoadedFixture = { accounts: [] };
  for (const [i, account] of fixture.accounts.entries())
    loaded.accounts.push(await loadAccount(app, services, account, `accounts[${i}]`));
  return loaded;
}

/** A key's secret given twice, or one some key has already: each key authenticates one key. */
function refuseRepeatedKeys(store: Store, fixture: Fixture): void {
  const seen = new Set<string>();
  for (const [i, account] of fixture.accounts.entries())
    for (const [j, key] of (account.keys ?? []).entries()) {
      const at = `accounts[${i}].keys[${j}].key`;
      if (seen.has(key.key)) throw new FixtureError(at, "this secret is given to another key of the fixture");
      if (store.apiKeys.byHash(hashKey(key.key))) throw new FixtureError(at, "a key with this secret exists already");
      seen.add(key.key);
    }
}

async function loadAccount(
  app: App,
  services: Services,
  input: FixtureAccountInput,
  at: string,
): Promise<LoadedFixture["accounts"][number]> {
  const { store } = services;
  const now = services.clock.now();
  const { account, workspace } = createAccount(store, ACTOR, input.name, input.plan, now);
  const workspaces = workspacesOf(store, account.id, workspace, input.workspaces ?? [], now);
  for (const [j, user] of (input.users ?? []).entries()) {
    try {
      createUser(store, ACTOR, account.id, user.email, hashPassword(user.password), user.role ?? "member", now);
    } catch (e) {
      throw new FixtureError(`${at}.users[${j}].email`, (e as Error).message);
    }
  }
  await loadAccountRecords(app, services, account.id, input.templates ?? [], workspaces, input.workspaces ?? [], at);
  for (const [j, key] of (input.keys ?? []).entries()) {
    const bound = key.workspace;
    const found = bound ? workspaces.find((w) => w.name === bound) : undefined;
    if (bound && !found) throw new FixtureError(`${at}.keys[${j}].workspace`, `no workspace ${bound} in the account`);
    try {
      issueKey(
        store,
        ACTOR,
        {
          accountId: account.id,
          name: key.name,
          scopes: key.scopes,
          workspaceId: bound === undefined ? undefined : (found?.id ?? null),
          expires: key.expires,
          secret: key.key,
        },
        now,
      );
    } catch (e) {
      throw new FixtureError(`${at}.keys[${j}]`, (e as Error).message);
    }
  }
  return {
    id: account.id,
    name: account.name,
    workspaces: workspaces.map((w) => ({ id: w.id, name: w.name })),
    keys: input.keys?.length ?? 0,
  };
}

/** The account's workspaces: the first the fixture names is the default one (renamed), the others new. */
function workspacesOf(
  store: Store,
  accountId: number,
  first: WorkspaceRow,
  inputs: FixtureWorkspaceInput[],
  now: number,
): WorkspaceRow[] {
  if (inputs.length === 0) return [first];
  const named = updateWorkspace(store, ACTOR, first, { name: inputs[0].name });
  return [named, ...inputs.slice(1).map((w) => createWorkspace(store, ACTOR, accountId, w.name, false, now))];
}

function hasRecords(w: FixtureRecords): boolean {
  return (w.references?.length ?? 0) + (w.memories?.length ?? 0) + (w.contents?.length ?? 0) > 0;
}

/** Runs `load` with a key of the account's, revoked after (whether it succeeded or not). */
async function withLoaderKey(services: Services, accountId: number, load: (key: string) => Promise<void>) {
  const now = services.clock.now();
  const issued = issueKey(services.store, ACTOR, { accountId, name: ACTOR, workspaceId: null }, now);
  try {
    await load(issued.secret);
  } finally {
    revokeKey(services.store, ACTOR, issued.row, services.clock.now());
    services.limiter = new RateLimiter(services.clock);
  }
}

/**
 * Loads an account's templates and the records of its `workspaces` (`inputs[i]` into `workspaces[i]`) through the
 * app, with a loader key of the account's (withLoaderKey); `at` is the JSON path of the account, for refusals.
 */
export async function loadAccountRecords(
  app: App,
  services: Services,
  accountId: number,
  templates: Record<string, unknown>[],
  workspaces: WorkspaceRow[],
  inputs: FixtureRecords[],
  at: string,
): Promise<void> {
  if (templates.length === 0 && !inputs.some(hasRecords)) return;
  await withLoaderKey(services, accountId, (key) =>
    loadRecordsAs(app, services, key, templates, workspaces, inputs, at),
  );
}

/** Loads an account's templates and the records of `workspaces` through the app, as `key`. */
async function loadRecordsAs(
  app: App,
  services: Services,
  key: string,
  templates: Record<string, unknown>[],
  workspaces: WorkspaceRow[],
  inputs: FixtureRecords[],
  at: string,
): Promise<void> {
  const send = sender(app, services, key);
  for (const [j, body] of templates.entries()) await send("POST", "/api/v1/templates", body, `${at}.templates[${j}]`);
  for (const [w, input] of inputs.entries()) {
    const ws = workspaces[w].id;
    const where = `${at}.workspaces[${w}]`;
    for (const [j, body] of (input.references ?? []).entries())
      await send("POST", `/api/v1/reference-materials?workspace_id=${ws}`, body, `${where}.references[${j}]`);
    for (const [j, body] of (input.memories ?? []).entries())
      await send("POST", `/api/v1/memories?workspace_id=${ws}`, body, `${where}.memories[${j}]`);
    for (const [j, content] of (input.contents ?? []).entries())
      await loadContent(send, ws, content, `${where}.contents[${j}]`);
  }
}

type Send = (method: string, path: string, body: unknown, at: string) => Promise<Record<string, unknown>>;

/**
 * A content: its draft; generated from its template (the built-in engine or the model configured) for any later
 * status; finalized with the fixture's text (or the generated one when it gives none); planned; published.
 */
async function loadContent(
  send: Send,
  ws: string,
  input: NonNullable<FixtureRecords["contents"]>[number],
  at: string,
): Promise<void> {
  const { status = "draft", scheduled_publish_at, ...draft } = input;
  const created = await send("POST", `/api/v1/contents?workspace_id=${ws}`, draft, at);
  const id = created.content_id as number;
  if (status !== "draft") await send("POST", "/api/v1/generate", generation(id, draft), `${at}.status`);
  if (status === "finalized" || status === "published") {
    const text = typeof draft.content === "string" && draft.content !== "" ? draft.content : undefined;
    const finalized = text ?? ((await send("GET", `/api/v1/contents/${id}`, undefined, at)).content as string);
    await send("POST", "/api/v1/finalizeContent", { content_id: id, finalized_content: finalized }, `${at}.status`);
  }
  if (scheduled_publish_at !== undefined)
    await send("PATCH", `/api/v1/contents/${id}/schedule`, { scheduled_publish_at }, `${at}.scheduled_publish_at`);
  if (status === "published") await send("POST", `/api/v1/contents/${id}/publication`, {}, `${at}.status`);
}

/** The generation that takes a draft to generated: its template (default the first built-in one), its title. */
function generation(id: number, draft: Record<string, unknown>): Record<string, unknown> {
  const direction = typeof draft.title === "string" && draft.title.trim() !== "" ? draft.title : "A short article.";
  return { content_id: id, template_id: draft.template_id ?? 1, user_direction: direction };
}

/** Sends requests as `key` with full rate buckets; an answer that is not a success is a FixtureError at `at`. */
function sender(app: App, services: Services, key: string): Send {
  return async (method, path, body, at) => {
    services.limiter = new RateLimiter(services.clock);
    const response = await app.handle(
      new Request(`http://fixtures.local${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.ok) return answer;
    throw new FixtureError(refusedAt(at, answer), String(answer.message ?? `answered ${response.status}`));
  };
}

/** The part of a record the API's refusal names (`body.title` in its details: `…memories[0].title`). */
function refusedAt(at: string, answer: Record<string, unknown>): string {
  const details = answer.details as { field?: unknown; errors?: { field?: unknown }[] } | undefined;
  const field = details?.field ?? details?.errors?.[0]?.field;
  return typeof field === "string" && field.startsWith("body.") ? `${at}.${field.slice(5)}` : at;
}
