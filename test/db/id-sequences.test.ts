/**
 * Ids are never given again (sql/0011_id_sequences.sql): a content, memory, reference material or conversion created
 * after the newest one was deleted gets a new id, so a retried DELETE or an old id never reaches another record.
 */
import { describe, expect, it } from "vitest";
import { knownMigrations, migrate } from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, sessionOf } from "../helpers/http.js";

describe("ids after deletes", () => {
  it("gives a content, memory, reference material and conversion a new id after the newest one was deleted", async () => {
    const h = makeHarness();
    const key = h.key();
    const create = {
      contents: async () =>
        (await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "t", content: "Some text." } })).body
          .content_id as number,
      memories: async () =>
        (await h.send("POST", "/api/v1/memories", { auth: key, body: { kind: "voice", title: "t", content: "c" } }))
          .body.id as number,
      "reference-materials": async () =>
        (
          await h.send("POST", "/api/v1/reference-materials", {
            auth: key,
            body: { title: "t", content: "The team plans the quarter.", format: "text" },
          })
        ).body.id as number,
    };
    for (const [path, make] of Object.entries(create)) {
      const first = await make();
      expect((await h.send("DELETE", `/api/v1/${path}/${first}`, { auth: key })).status).toBe(200);
      const second = await make();
      expect(second, path).toBeGreaterThan(first);
      // A retried DELETE of the first finds nothing, and the second is untouched.
      expectErrorBody(await h.send("DELETE", `/api/v1/${path}/${first}`, { auth: key }), 404);
      expect((await h.send("GET", `/api/v1/${path}/${second}`, { auth: key })).status).toBe(200);
    }

    // A conversion goes with its content; the next one's id is new too.
    const content = await create.contents();
    const convert = async (contentId: number) =>
      (
        await h.send("POST", "/api/v1/conversions", {
          auth: key,
          body: { content_id: contentId, target_format: "plain_text" },
        })
      ).body.id as number;
    const conversion = await convert(content);
    await h.send("DELETE", `/api/v1/contents/${content}`, { auth: key });
    expect(await convert(await create.contents())).toBeGreaterThan(conversion);
  });

  it("gives new ids after a workspace's records went with it", async () => {
    const h = makeHarness();
    const key = h.key();
    const token = await sessionOf(h, "admin@a.test");
    const body = { title: "t", content: "Some text.", workspace_id: h.a.ws2 };
    const inWs2 = (await h.send("POST", "/api/v1/contents", { auth: key, body })).body.content_id as number;
    expect((await h.send("DELETE", `/api/v1/workspaces/${h.a.ws2}`, { auth: token })).status).toBe(200);
    const next = (await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "u", content: "Other." } })).body
      .content_id as number;
    expect(next).toBeGreaterThan(inWs2);
  });

  it("starts each sequence, in a database that had records, at its largest id", () => {
    const db = openDb(":memory:");
    const known = knownMigrations();
    const before = known.filter((m) => m.name < "0011");
    migrate(db, before);
    db.exec(`INSERT INTO accounts (id, name, plan, created_at) VALUES (1, 'a', 'business', '2026-01-01');
      INSERT INTO workspaces (id, account_id, name, is_default, created_at) VALUES ('ws_1', 1, 'w', 1, '2026-01-01');
      INSERT INTO memories (account_id, workspace_id, kind, title, content, created_at, updated_at)
        VALUES (1, 'ws_1', 'voice', 'a', 'a', 'x', 'x'), (1, 'ws_1', 'voice', 'b', 'b', 'x', 'x'),
          (1, 'ws_1', 'voice', 'c', 'c', 'x', 'x')`);
    migrate(db, known);
    const seq = db.prepare("SELECT name, seq FROM id_sequences ORDER BY name").all();
    // Accounts and users have theirs since 0020 (test/cli/admin-delete.test.ts deletes and creates them).
    expect(seq).toEqual([
      { name: "accounts", seq: 1 },
      { name: "contents", seq: 0 },
      { name: "conversions", seq: 0 },
      { name: "memories", seq: 3 },
      { name: "reference_materials", seq: 0 },
      { name: "users", seq: 0 },
    ]);
    db.exec("DELETE FROM memories WHERE id = 3");
    db.exec(`INSERT INTO memories (id, account_id, workspace_id, kind, title, content, created_at, updated_at)
      VALUES ((SELECT seq + 1 FROM id_sequences WHERE name = 'memories'), 1, 'ws_1', 'voice', 'd', 'd', 'x', 'x')`);
    expect(db.prepare("SELECT max(id) AS id FROM memories").get()).toEqual({ id: 4 });
    // Without its sequence, an insert is refused rather than given a deleted id.
    db.exec("DELETE FROM memories WHERE id = 4; DELETE FROM id_sequences WHERE name = 'memories'");
    expect(() =>
      db.exec(`INSERT INTO memories (account_id, workspace_id, kind, title, content, created_at, updated_at)
        VALUES (1, 'ws_1', 'voice', 'e', 'e', 'x', 'x')`),
    ).toThrow(/id_sequences has no row for memories/);
  });
});
