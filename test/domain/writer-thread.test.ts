/**
 * A running server's writes off the HTTP thread (src/domain/writer.ts): generations, finalizations, learning jobs,
 * the knowledge graph and the usage counters are written by the writer thread's own connection, and their texts are
 * read by the worker threads themselves; the answers and errors are those of the pipeline on one thread.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/open.js";
import { createAccount, createUser, createWorkspace, issueKey } from "../../src/domain/admin.js";
import type { ThreadWriter } from "../../src/domain/writer.js";
import { memoryLogger } from "../../src/runtime/log.js";
import { type RunningServer, startServer } from "../../src/server/start.js";
import type { Send } from "../helpers/harness.js";
import { generateAndFinalize, sendTo } from "../helpers/http.js";
import { png } from "../helpers/images.js";

const direction = "How our planning team runs quarterly reviews with Acme Corporation in Lisbon";

const dir = mkdtempSync(path.join(tmpdir(), "cs-writer-"));
let server: RunningServer;
let key: string;
let boundElsewhere: string;
let accountId: number;

// Through the running server's app (with the description's contract checked), to its writer thread.
const send = (method: string, route: string, secret: string, body?: unknown) =>
  sendTo(server.app, method, route, { auth: secret, body });
/** The running server's app, shaped as the harness for the shared helpers. */
const app = { send: (method: string, route: string, opts?: Send) => sendTo(server.app, method, route, opts) };
const generation = { template_id: 1, user_direction: direction };
const generate = async () => {
  const r = await send("POST", "/api/v1/generate", key, generation);
  expect(r.status).toBe(201);
  return r.body as { content_id: number; content: string };
};
/** The server's own connection's count of rows it changed: the writer's connection is another one. */
const mainChanges = () => (server.db.prepare("SELECT total_changes() AS n").get() as { n: number }).n;

beforeAll(async () => {
  server = await startServer({ dataDir: dir, host: "127.0.0.1", port: 0, workers: 1, logger: memoryLogger() });
  const store = server.services.store;
  const { account } = createAccount(store, "test", "Writer", "business", Date.now());
  accountId = account.id;
  key = issueKey(store, "test", { accountId, name: "k", workspaceId: null }).secret;
  const other = createWorkspace(store, "test", accountId, "Other");
  boundElsewhere = issueKey(store, "test", { accountId, name: "b", workspaceId: other.id }).secret;
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a running server's writer thread: the records it stores", () => {
  it("finalizes on its own connection and answers with the text it stored", async () => {
    const content = await generate();
    const text = `${content.content}\n\nA closing paragraph the writer added by hand, naming Acme Corporation again.`;
    const before = mainChanges();
    const r = await send("POST", "/api/v1/finalizeContent", key, {
      content_id: content.content_id,
      finalized_content: text,
      edit_seconds: 120,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      content_id: content.content_id,
      finalized_content: text,
      status: "finalized",
      learning_triggered: true,
    });
    // Nothing of it was written by the HTTP thread's connection, yet that connection reads it at once.
    expect(mainChanges()).toBe(before);
    const got = await send("GET", `/api/v1/contents/${content.content_id}`, key);
    expect(got.body).toMatchObject({ status: "finalized", finalized_content: text, updated_at: r.body.updated_at });
    // The text is stored once, in the finalized version (sql/0010_text_version.sql); a row finalized before, holding
    // it twice in the row, reads the same.
    const stored = server.db.prepare("SELECT content, finalized_content, text_version FROM contents WHERE id = ?");
    expect(stored.get(content.content_id)).toEqual({ content: "", finalized_content: null, text_version: 2 });
    server.db
      .prepare("UPDATE contents SET content = ?, finalized_content = ?, text_version = NULL WHERE id = ?")
      .run(text, text, content.content_id);
    const legacy = await send("GET", `/api/v1/contents/${content.content_id}`, key);
    expect(legacy.body).toMatchObject({ content: text, finalized_content: text });
  });

  it("stores generations on its own connection, new records and new versions, with the pipeline's errors", async () => {
    const before = mainChanges();
    const first = await generate();
    const again = await send("POST", "/api/v1/generate", key, {
      template_id: 1,
      user_direction: direction,
      content_id: first.content_id,
      seed: 7,
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ content_id: first.content_id, status: "generated", version_count: 2 });
    // Nothing of it was written by the HTTP thread's connection, yet that connection reads it at once.
    expect(mainChanges()).toBe(before);
    const got = await send("GET", `/api/v1/contents/${first.content_id}`, key);
    expect(got.body).toMatchObject({
      content: again.body.content,
      version_count: 2,
      updated_at: again.body.updated_at,
    });
    const mismatch = await send("POST", "/api/v1/generate", boundElsewhere, {
      template_id: 1,
      user_direction: direction,
      content_id: first.content_id,
    });
    expect(mismatch.status).toBe(403);
    expect(mismatch.body.details).toMatchObject({ error_code: "workspace_mismatch" });
  });

  it("stores images on its own connection: uploads and renderings, bytes as sent", async () => {
    const before = mainChanges();
    const bytes = png(640, 480, 3 * 1024 * 1024);
    const up = await send("POST", "/api/v1/images", key, {
      filename: "plan.png",
      data_base64: Buffer.from(bytes).toString("base64"),
    });
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ width: 640, height: 480, size_bytes: bytes.byteLength, source: "upload" });
    const made = await send("POST", "/api/v1/images/generate", key, {
      prompt: "A quarterly plan",
      width: 64,
      height: 64,
    });
    expect(made.status).toBe(201);
    expect(mainChanges()).toBe(before);
    const stored = server.db.prepare("SELECT data FROM images WHERE id = ?").pluck();
    expect(Buffer.compare(stored.get(up.body.id) as Buffer, Buffer.from(bytes))).toBe(0);
    expect((stored.get(made.body.id) as Buffer).byteLength).toBe(made.body.size_bytes);
  });

  it("answers with the text as stored, also when the request held a lone surrogate", async () => {
    const content = await generate();
    const r = await send("POST", "/api/v1/finalizeContent", key, {
      content_id: content.content_id,
      finalized_content: "Before \ud800 after.",
      edit_seconds: 1,
    });
    expect(r.status).toBe(200);
    const got = await send("GET", `/api/v1/contents/${content.content_id}`, key);
    expect(got.body.finalized_content).toBe("Before \ufffd after.");
    expect(r.body.finalized_content).toBe(got.body.finalized_content);
  });

  it("stores drafts and edits on its own connection, answered as stored, with the pipeline's errors", async () => {
    const before = mainChanges();
    const draft = await send("POST", "/api/v1/contents", key, { title: "Plan \udc00", content: "Draft \ud800 text." });
    expect(draft.status).toBe(201);
    const id = draft.body.content_id;
    const edited = await send("PATCH", `/api/v1/contents/${id}`, key, { content: "Edited \ud800 text." });
    expect(edited.status).toBe(200);
    const retitled = await send("PATCH", `/api/v1/contents/${id}`, key, { title: "Renamed" });
    expect(retitled.status).toBe(200);
    expect(mainChanges()).toBe(before);
    const got = await send("GET", `/api/v1/contents/${id}`, key);
    expect(got.body).toMatchObject({ title: "Renamed", content: "Edited \ufffd text.", status: "draft" });
    expect(draft.body).toMatchObject({ title: "Plan \ufffd", content: "Draft \ufffd text." });
    expect(edited.body.content).toBe(got.body.content);
    // A title change answers the stored text it did not send.
    expect(retitled.body).toEqual(got.body);
    // The checks run in the writer's transaction: another workspace's key, a finalized text, an unknown record.
    const mismatch = await send("PATCH", `/api/v1/contents/${id}`, boundElsewhere, { title: "No" });
    expect(mismatch.status).toBe(403);
    expect(mismatch.body.details.error_code).toBe("workspace_mismatch");
    const { generated } = await generateAndFinalize(app, key, generation, { text: "Final.", editSeconds: 1 });
    const fixed = await send("PATCH", `/api/v1/contents/${generated.body.content_id}`, key, { content: "Changed." });
    expect(fixed.status).toBe(409);
    expect(fixed.body.details.error_code).toBe("invalid_status");
    const missing = await send("PATCH", "/api/v1/contents/999999", key, { title: "No" });
    expect(missing.status).toBe(404);
    expect(missing.body.details.error_code).toBe("content_not_found");
  });
});

describe("a running server's writer thread: the order of writes and deletes, and their errors", () => {
  it("runs a record's writes in the order asked: a schedule waits for the edit queued before it", async () => {
    const draft = await send("POST", "/api/v1/contents", key, { title: "Order", content: "First text." });
    const id = draft.body.content_id;
    // The writer held (as the checkpointer holds it): the edit waits in its queue when the schedule arrives.
    const release = (server.services.writer as ThreadWriter).hold();
    const edit = send("PATCH", `/api/v1/contents/${id}`, key, { content: "Second text." });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const schedule = send("PATCH", `/api/v1/contents/${id}/schedule`, key, {
      scheduled_publish_at: "2026-12-01T09:00:00Z",
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    const [edited, planned] = await Promise.all([edit, schedule]);
    expect(edited.status).toBe(200);
    expect(planned.status).toBe(200);
    expect(planned.body).toMatchObject({ content: "Second text.", scheduled_publish_day: "2026-12-01" });
    expect(planned.body.updated_at >= edited.body.updated_at).toBe(true);
  });

  it("writes memories and conversions, and deletes references and images, on its own connection", async () => {
    const before = mainChanges();
    const memory = await send("POST", "/api/v1/memories", key, { kind: "voice", title: "Tone", content: "Plain." });
    expect(memory.status).toBe(201);
    const changed = await send("PATCH", `/api/v1/memories/${memory.body.id}`, key, { content: "Plain and short." });
    expect(changed.body).toMatchObject({ id: memory.body.id, title: "Tone", content: "Plain and short." });
    const draft = await send("POST", "/api/v1/contents", key, { title: "Converted", content: "# Plan\n\nShort." });
    const conversion = await send("POST", "/api/v1/conversions", key, {
      content_id: draft.body.content_id,
      target_format: "html",
    });
    expect(conversion.status).toBe(201);
    expect(conversion.body.output).toContain("<h1>Plan</h1>");
    const ref = await send("POST", "/api/v1/reference-materials", key, {
      title: "Gone soon",
      format: "text",
      content: "A passage to delete.",
    });
    const image = await send("POST", "/api/v1/images", key, {
      filename: "gone.png",
      data_base64: Buffer.from(png(32, 32)).toString("base64"),
    });
    const deletes = [
      `/api/v1/memories/${memory.body.id}`,
      `/api/v1/reference-materials/${ref.body.id}`,
      `/api/v1/images/${image.body.id}`,
    ];
    for (const route of deletes) expect((await send("DELETE", route, key)).status).toBe(200);
    expect(mainChanges()).toBe(before);
    for (const route of deletes) expect((await send("GET", route, key)).status).toBe(404);
    expect((await send("GET", `/api/v1/conversions/${conversion.body.id}`, key)).body).toEqual(conversion.body);
  });

  it("deletes a workspace on its own connection, and its bound key is refused by the very next request", async () => {
    const store = server.services.store;
    const ws = createWorkspace(store, "test", accountId, "Doomed");
    const bound = issueKey(store, "test", { accountId, name: "doomed", workspaceId: ws.id }).secret;
    const memory = await send("POST", "/api/v1/memories", bound, { kind: "voice", title: "Gone", content: "Soon." });
    expect(memory.status).toBe(201);
    // The key in use: it and its workspace are kept in memory (db/row-cache.ts) until the deletion.
    expect((await send("GET", "/api/v1/api-keys/current", bound)).status).toBe(200);
    const user = createUser(store, "test", accountId, `owner-${ws.id}@writer.test`, "x", "admin");
    const session = (await server.services.sessions.issue(user)).token;
    const before = mainChanges();
    const deleted = await send("DELETE", `/api/v1/workspaces/${ws.id}`, session);
    expect(deleted.body).toEqual({ id: ws.id, deleted: true });
    expect(mainChanges()).toBe(before);
    expect((await send("GET", "/api/v1/api-keys/current", bound)).status).toBe(401);
    expect((await send("GET", `/api/v1/memories/${memory.body.id}`, key)).status).toBe(404);
    expect((await send("DELETE", `/api/v1/workspaces/${ws.id}`, session)).status).toBe(404);
  });

  it("runs a record's writes in the order asked: what a queued delete removed is not written after it", async () => {
    const memory = await send("POST", "/api/v1/memories", key, { kind: "context", title: "Old", content: "Old." });
    const draft = await send("POST", "/api/v1/contents", key, { title: "To convert", content: "Short text." });
    const release = (server.services.writer as ThreadWriter).hold();
    const removed = send("DELETE", `/api/v1/memories/${memory.body.id}`, key);
    const removedContent = send("DELETE", `/api/v1/contents/${draft.body.content_id}`, key);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Both still read as there: the deletes wait in the writer's queue.
    const change = send("PATCH", `/api/v1/memories/${memory.body.id}`, key, { title: "New" });
    const conversion = send("POST", "/api/v1/conversions", key, {
      content_id: draft.body.content_id,
      target_format: "plain_text",
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    expect((await removed).status).toBe(200);
    expect((await removedContent).status).toBe(200);
    const changed = await change;
    expect(changed.status).toBe(404);
    expect(changed.body.details).toMatchObject({ error_code: "memory_not_found", memory_id: memory.body.id });
    const converted = await conversion;
    expect(converted.status).toBe(404);
    expect(converted.body.details).toMatchObject({ error_code: "content_not_found" });
    const orphans = server.db.prepare("SELECT count(*) FROM conversions WHERE content_id = ?").pluck();
    expect(orphans.get(draft.body.content_id)).toBe(0);
  });

  it("answers the pipeline's coded errors from the writer thread", async () => {
    const content = await generate();
    const body = { content_id: content.content_id, finalized_content: "Final text.", edit_seconds: 5 };
    // A key bound to another workspace: 403 workspace_mismatch, raised in the writer's transaction.
    const mismatch = await send("POST", "/api/v1/finalizeContent", boundElsewhere, body);
    expect(mismatch.status).toBe(403);
    expect(mismatch.body.details).toMatchObject({
      error_code: "workspace_mismatch",
      bound_workspace_id: expect.any(String),
    });
    expect(await send("POST", "/api/v1/finalizeContent", key, body)).toMatchObject({ status: 200 });
    const again = await send("POST", "/api/v1/finalizeContent", key, body);
    expect(again.status).toBe(409);
    expect(again.body.details).toMatchObject({ error_code: "invalid_status" });
    const missing = await send("POST", "/api/v1/finalizeContent", key, { ...body, content_id: 987_654 });
    expect(missing.status).toBe(404);
    expect(missing.body.details).toMatchObject({ error_code: "content_not_found", content_id: 987_654 });
  });
});

describe("a running server's writer thread: background work, replays, and the database at close", () => {
  it("runs learning jobs, the knowledge graph and its reads with texts read by the worker threads", async () => {
    const { finalized: r } = await generateAndFinalize(app, key, generation, {
      text: (generated) => `${generated}\n\nAcme Corporation opened its Lisbon office. Acme Corporation hired.`,
      editSeconds: 60,
    });
    await server.services.learning.idle();
    await server.services.graph.idle();
    const job = await send("GET", `/api/v1/learning-jobs/${r.body.learning_job_id}`, key);
    expect(job.body).toMatchObject({ status: "succeeded" });
    const graph = await send("GET", "/api/v1/knowledge-graph", key);
    expect(graph.status).toBe(200);
    const labels = (graph.body.nodes as { label: string }[]).map((e) => e.label);
    expect(labels).toContain("Acme Corporation");
    // Both graph reads run on a pool thread's own read connection (domain/graph-reads.ts).
    const found = await send("GET", "/api/v1/knowledge-graph/entities?q=acme", key);
    expect(found.status).toBe(200);
    const acme = (found.body.data as { label: string; related: unknown[] }[]).find(
      (e) => e.label === "Acme Corporation",
    );
    expect(acme?.related.length).toBeGreaterThan(0);
  });

  it("deletes a content on the writer's connection: of two deletes at once, one answers 200, the other 404", async () => {
    const draft = await send("POST", "/api/v1/contents", key, { title: "To delete", content: "Short." });
    expect(draft.status).toBe(201);
    const before = mainChanges();
    const answers = await Promise.all([
      send("DELETE", `/api/v1/contents/${draft.body.content_id}`, key),
      send("DELETE", `/api/v1/contents/${draft.body.content_id}`, key),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    expect(mainChanges()).toBe(before);
    expect((await send("GET", `/api/v1/contents/${draft.body.content_id}`, key)).status).toBe(404);
  });

  it("stores reference materials on its own connection and generates from passages the pool thread reads itself", async () => {
    const before = mainChanges();
    const content =
      "Remote teams that hold a weekly written planning review ship 23% more features per quarter.\n\n" +
      "The review takes under an hour when the agenda is shared in advance.";
    const ref = await send("POST", "/api/v1/reference-materials", key, {
      title: "Planning study",
      format: "text",
      content,
    });
    expect(ref.status).toBe(201);
    expect(ref.body).toMatchObject({ title: "Planning study", content, passage_count: 1 });
    expect(mainChanges()).toBe(before);
    expect((await send("GET", `/api/v1/reference-materials/${ref.body.id}`, key)).body).toEqual(ref.body);
    const gen = await send("POST", "/api/v1/generate", key, {
      template_id: 1,
      user_direction: "Weekly written planning reviews for remote teams",
      reference_material_ids: [ref.body.id],
    });
    expect(gen.status).toBe(201);
    expect(gen.body.sources.map((s: { reference_material_id: number }) => s.reference_material_id)).toContain(
      ref.body.id,
    );
    const thesis = await send("POST", "/api/v1/thesis", key, {
      user_direction: "weekly written planning reviews for remote teams",
      reference_material_ids: [ref.body.id],
    });
    expect(thesis.status).toBe(200);
    expect(thesis.body.supporting_points[0]).toMatchObject({ reference_material_id: ref.body.id });
  });

  it("stores an Idempotency-Key's response on its own connection, and replays it", async () => {
    const content = await generate();
    const before = mainChanges();
    const finalize = () =>
      sendTo(server.app, "POST", "/api/v1/finalizeContent", {
        auth: key,
        headers: { "idempotency-key": `writer-${content.content_id}` },
        body: {
          content_id: content.content_id,
          finalized_content: `${content.content}\n\nSigned off.`,
          edit_seconds: 60,
        },
      });
    const first = await finalize();
    expect(first.status).toBe(200);
    // The finalization and its stored response: neither written by the HTTP thread's connection.
    expect(mainChanges()).toBe(before);
    const stored = server.db
      .prepare("SELECT status FROM idempotency_keys WHERE idempotency_key = ?")
      .get(`writer-${content.content_id}`);
    expect(stored).toEqual({ status: 200 });
    const again = await finalize();
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });

  it("flushes usage counters through the writer", async () => {
    const written = await server.services.usage.flushVia(server.services.writer);
    expect(written).toBeGreaterThan(0);
    const row = server.db
      .prepare("SELECT SUM(finalizations) AS n FROM usage_daily WHERE account_id = ?")
      .get(accountId) as { n: number };
    // Counted once, though the idempotent one was sent twice.
    expect(row.n).toBe(6);
  });

  it("leaves a database that holds every write and passes its integrity check after close", async () => {
    await server.close();
    const db = openDb(dir);
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      const n = db.prepare("SELECT COUNT(*) AS n FROM contents WHERE account_id = ? AND status = 'finalized'");
      expect((n.get(accountId) as { n: number }).n).toBe(6);
    } finally {
      db.close();
    }
  });
});
