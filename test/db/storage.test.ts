/**
 * The storage counter (the triggers of sql/0019_storage_usage.sql and 0021_storage_idempotency.sql) against the recount from the rows (db/storage.ts
 * STORAGE_SIZES): after every kind of write and deletion, cascades included, both say the same; an account not
 * counted yet (as after the migration) is counted by recountUnknownStorage.
 */
import { describe, expect, it } from "vitest";
import { knownMigrations, migrate } from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { recountUnknownStorage } from "../../src/db/storage.js";
import { makeHarness } from "../helpers/harness.js";
import { png } from "../helpers/images.js";

describe("the storage counter", () => {
  it("matches a recount from the rows after writes, edits, finalization, uploads and deletions", async () => {
    const h = makeHarness();
    const store = h.services.store;
    const token = await h.login("admin@a.test");
    const key = h.key();
    const ok = async (res: Promise<{ status: number; body: unknown }>) => {
      const answer = await res;
      expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
      return answer;
    };
    const counted = () => store.storage.used(h.a.id);
    const expectRecount = () => {
      const before = counted();
      expect(store.storage.recount(h.a.id)).toBe(before);
    };
    const ref = await h.send("POST", "/api/v1/reference-materials", {
      auth: key,
      body: {
        title: "Roofs",
        content: "Flat roofs take ballast mounts. Nobody drills the membrane. ".repeat(40),
        format: "text",
      },
    });
    const memory = await h.send("POST", "/api/v1/memories", {
      auth: key,
      body: { kind: "voice", title: "Tone", content: "Plain words, short sentences, é and 漢字." },
    });
    const patched = await h.send("PATCH", `/api/v1/memories/${memory.body.id}`, {
      auth: key,
      body: { content: "Longer: ".repeat(30) },
    });
    expect(patched.status).toBe(200);
    const generated = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "Solar on flat roofs", reference_material_ids: [ref.body.id], seed: 1 },
    });
    expect(generated.status).toBe(201);
    const id = generated.body.content_id;
    const fin = await h.send("POST", "/api/v1/finalizeContent", {
      auth: key,
      body: { content_id: id, finalized_content: "Final text, edited: ünïcode.", edit_seconds: 5 },
    });
    expect(fin.status).toBe(200);
    await ok(
      h.send("POST", "/api/v1/conversions", {
        auth: key,
        body: { content_id: id, target_format: "social_thread" },
      }),
    );
    await ok(h.send("POST", "/api/v1/conversions", { auth: key, body: { content_id: id, target_format: "email" } }));
    const draft = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "D", content: "draft" } });
    await ok(
      h.send("PATCH", `/api/v1/contents/${draft.body.content_id}`, {
        auth: key,
        body: { content: "a longer draft" },
      }),
    );
    const image = await h.send("POST", "/api/v1/images", {
      auth: key,
      body: { filename: "p.png", data_base64: Buffer.from(png(3, 2)).toString("base64") },
    });
    expect(image.status).toBe(201);
    expect(counted()).toBeGreaterThan(0);
    expectRecount();
    // In the second workspace, deleted whole: its records' bytes come back through the cascades.
    const before = counted();
    const other = await h.send("POST", `/api/v1/memories?workspace_id=${h.a.ws2}`, {
      auth: key,
      body: { kind: "context", title: "Other", content: "In the second workspace." },
    });
    expect(other.status).toBe(201);
    expect((await h.send("DELETE", `/api/v1/workspaces/${h.a.ws2}`, { auth: token })).status).toBe(200);
    expect(counted()).toBe(before);
    expectRecount();
    await ok(h.send("DELETE", `/api/v1/contents/${id}`, { auth: key }));
    await ok(h.send("DELETE", `/api/v1/reference-materials/${ref.body.id}`, { auth: key }));
    await ok(h.send("DELETE", `/api/v1/images/${image.body.id}`, { auth: key }));
    expectRecount();
    await ok(h.send("DELETE", `/api/v1/memories/${memory.body.id}`, { auth: key }));
    await ok(h.send("DELETE", `/api/v1/contents/${draft.body.content_id}`, { auth: key }));
    expect(counted()).toBe(0);
  });

  it("counts the accounts not counted yet, as the migration leaves them", async () => {
    const h = makeHarness();
    const key = h.key();
    await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "T", content: "twelve bytes" } });
    h.db.prepare("UPDATE storage_usage SET used_bytes = NULL").run();
    expect(h.services.store.storage.used(h.a.id)).toBeNull();
    recountUnknownStorage(h.db);
    expect(h.services.store.storage.used(h.a.id)).toBe(13);
    expect(h.services.store.storage.used(h.b.id)).toBe(0);
  });

  it("counts, on the upgrade that adds them, the answers kept for replay before it", () => {
    const db = openDb(":memory:");
    migrate(
      db,
      knownMigrations().filter((m) => m.version < 21),
    );
    db.prepare("INSERT INTO accounts (id, name, plan, created_at) VALUES (7, 'Kept', 'pro', '2026-01-01')").run();
    db.prepare(
      `INSERT INTO idempotency_keys (account_id, caller, idempotency_key, fingerprint, status, headers, body, created_at,
         expires_at) VALUES (7, 'k', 'a', 'f', 201, '{}', ?, '2026-01-01', '2026-01-02')`,
    ).run(Buffer.alloc(300));
    expect(db.prepare("SELECT used_bytes FROM storage_usage WHERE account_id = 7").pluck().get()).toBe(0);
    expect(migrate(db)).toContain("0021_storage_idempotency.sql");
    expect(db.prepare("SELECT used_bytes FROM storage_usage WHERE account_id = 7").pluck().get()).toBe(300);
  });
});
