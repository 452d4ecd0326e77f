/**
 * A content's current text is stored once (sql/0010_text_version.sql): generation and finalization keep it in the
 * version they add, and the row names that version; an edit keeps the text in the row. Every read sees the text.
 */
import { describe, expect, it } from "vitest";
import { makeHarness } from "../helpers/harness.js";
import { generateAndFinalize } from "../helpers/http.js";

const direction = "How our planning team runs quarterly reviews with Acme Corporation in Lisbon";
const generation = { template_id: 1, user_direction: direction };

function setup() {
  const h = makeHarness();
  const key = h.key();
  const db = h.db;
  const raw = (id: number) =>
    db
      .prepare<[number], { content: string; finalized_content: string | null; text_version: number | null }>(
        "SELECT content, finalized_content, text_version FROM contents WHERE id = ?",
      )
      .get(id);
  /** Bytes of texts stored for a content: in its row and in its versions. */
  const storedTextBytes = (id: number) =>
    db
      .prepare<[number, number], number>(
        `SELECT (SELECT length(CAST(content AS BLOB)) + coalesce(length(CAST(finalized_content AS BLOB)), 0)
                   FROM contents WHERE id = ?)
              + (SELECT sum(length(CAST(text AS BLOB))) FROM content_versions WHERE content_id = ?)`,
      )
      .pluck()
      .get(id, id)!;
  const generate = async (body: Record<string, unknown> = {}) => {
    const r = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { ...generation, ...body },
    });
    expect(r.status).toBe(body.content_id === undefined ? 201 : 200);
    return r.body as { content_id: number; content: string };
  };
  const get = async (id: number) => (await h.send("GET", `/api/v1/contents/${id}`, { auth: key })).body;
  return { h, key, raw, storedTextBytes, generate, get };
}

describe("a content's text, stored once", () => {
  it("after a generation is the version's: the row keeps none of it, and reads see it", async () => {
    const { h, key, raw, storedTextBytes, generate, get } = setup();
    const g = await generate();
    expect(raw(g.content_id)).toEqual({ content: "", finalized_content: null, text_version: 1 });
    expect(storedTextBytes(g.content_id)).toBe(Buffer.byteLength(g.content));
    expect(await get(g.content_id)).toMatchObject({ content: g.content, status: "generated", version_count: 1 });
    const list = await h.send("GET", "/api/v1/contents", { auth: key });
    expect(list.status).toBe(200);
    const listed = (list.body as { data: { content_id: number; content: string }[] }).data;
    expect(listed.find((c) => c.content_id === g.content_id)?.content).toBe(g.content);
  });

  it("after a finalization is the finalized version's; the generated text stays in its own version", async () => {
    const { h, key, raw, storedTextBytes, get } = setup();
    const { generated, text } = await generateAndFinalize(h, key, generation, {
      text: (content) => `${content}\n\nA closing paragraph the writer added by hand.`,
      editSeconds: 60,
    });
    const g = generated.body;
    expect(raw(g.content_id)).toEqual({ content: "", finalized_content: null, text_version: 2 });
    expect(storedTextBytes(g.content_id)).toBe(Buffer.byteLength(g.content) + Buffer.byteLength(text));
    expect(await get(g.content_id)).toMatchObject({ content: text, finalized_content: text, status: "finalized" });
    const versions = await h.send("GET", `/api/v1/contents/${g.content_id}/versions`, { auth: key });
    expect((versions.body as { data: { version: number; text: string }[] }).data).toMatchObject([
      { version: 1, text: g.content },
      { version: 2, text },
    ]);
  });

  it("stays where it is when only the title changes, and moves into the row when the text is edited", async () => {
    const { h, key, raw, generate, get } = setup();
    const g = await generate();
    const retitled = await h.send("PATCH", `/api/v1/contents/${g.content_id}`, {
      auth: key,
      body: { title: "A new title" },
    });
    expect(retitled.status).toBe(200);
    expect(raw(g.content_id)).toMatchObject({ content: "", text_version: 1 });
    expect(await get(g.content_id)).toMatchObject({ title: "A new title", content: g.content });
    const edited = await h.send("PATCH", `/api/v1/contents/${g.content_id}`, {
      auth: key,
      body: { content: "An edited text." },
    });
    expect(edited.status).toBe(200);
    expect(raw(g.content_id)).toEqual({ content: "An edited text.", finalized_content: null, text_version: null });
    expect(await get(g.content_id)).toMatchObject({ content: "An edited text.", version_count: 1 });
    // A generation into it adds version 2 and names it again.
    const again = await generate({ content_id: g.content_id, seed: 2 });
    expect(raw(g.content_id)).toMatchObject({ content: "", text_version: 2 });
    expect(await get(g.content_id)).toMatchObject({ content: again.content, version_count: 2 });
  });

  it("of rows written before (text in the row) reads the same", async () => {
    const { h, raw, generate, get } = setup();
    const g = await generate();
    h.db.prepare("UPDATE contents SET content = ?, text_version = NULL WHERE id = ?").run(g.content, g.content_id);
    expect(raw(g.content_id)).toMatchObject({ content: g.content, text_version: null });
    expect(await get(g.content_id)).toMatchObject({ content: g.content });
  });

  it("of a published content is the finalized version's, and a row naming a missing version falls back to its own", async () => {
    const { h, key, raw, get } = setup();
    const { generated, text } = await generateAndFinalize(h, key, generation, {
      text: (content) => `${content}\n\nSigned off.`,
      editSeconds: 5,
    });
    const g = generated.body;
    const published = await h.send("POST", `/api/v1/contents/${g.content_id}/publication`, { auth: key, body: {} });
    expect(published.status).toBe(200);
    expect(raw(g.content_id)).toMatchObject({ content: "", text_version: 2 });
    expect(await get(g.content_id)).toMatchObject({ status: "published", content: text, finalized_content: text });
    // Nothing deletes versions; should a row still name one that is gone, it reads its own column, not null.
    h.db.prepare("UPDATE contents SET content = 'kept', text_version = 9 WHERE id = ?").run(g.content_id);
    expect(await get(g.content_id)).toMatchObject({ content: "kept" });
  });
});
