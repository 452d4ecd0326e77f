import { describe, expect, it } from "vitest";
import { type Answer, type Harness, makeHarness } from "../helpers/harness.js";
import { expectCode, expectErrorBody, sessionOf } from "../helpers/http.js";

const BASE = "/api/v1/memories";

async function createMemory(h: Harness, auth: string, body: Record<string, unknown> = {}) {
  const res = await h.send("POST", BASE, {
    auth,
    body: { kind: "voice", title: "House voice", content: "Short sentences. No jargon.", ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; workspace_id: string; kind: string; title: string; content: string };
}

describe("creating memories", () => {
  it("answers 201 with the DESIGN §9 fields and the beta header", async () => {
    const h = makeHarness();
    const res = await h.send("POST", BASE, {
      auth: h.key(),
      body: { kind: "context", title: "  Audience  ", content: "  Finance teams at mid-size firms.  " },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-api-stability")).toBe("beta");
    const now = new Date(h.clock.now()).toISOString();
    expect(res.body).toEqual({
      id: expect.any(Number),
      workspace_id: h.a.ws1,
      kind: "context",
      title: "Audience",
      content: "Finance teams at mid-size firms.",
      created_at: now,
      updated_at: now,
    });
  });

  const placement: {
    name: string;
    bound: (h: Harness) => string | null;
    requested: (h: Harness) => string | undefined;
    expected: (h: Harness) => string;
  }[] = [
    {
      name: "unbound key, no workspace_id: the default workspace",
      bound: () => null,
      requested: () => undefined,
      expected: (h) => h.a.ws1,
    },
    {
      name: "unbound key, workspace_id: that workspace",
      bound: () => null,
      requested: (h) => h.a.ws2,
      expected: (h) => h.a.ws2,
    },
    {
      name: "bound key, no workspace_id: the bound workspace",
      bound: (h) => h.a.ws2,
      requested: () => undefined,
      expected: (h) => h.a.ws2,
    },
    {
      name: "bound key, its own workspace_id",
      bound: (h) => h.a.ws2,
      requested: (h) => h.a.ws2,
      expected: (h) => h.a.ws2,
    },
  ];
  it.each(placement)("$name", async ({ bound, requested, expected }) => {
    const h = makeHarness();
    const m = await createMemory(h, h.key({ workspaceId: bound(h) }), { workspace_id: requested(h) });
    expect(m.workspace_id).toBe(expected(h));
  });

  it("a key bound to ws1 creating in ws2 gets 403 workspace_mismatch and nothing is stored", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    for (const opts of [
      { query: `?workspace_id=${h.a.ws2}`, body: {} },
      { query: "", body: { workspace_id: h.a.ws2 } },
    ]) {
      const res = await h.send("POST", `${BASE}${opts.query}`, {
        auth: key,
        body: { kind: "voice", title: "t", content: "c", ...opts.body },
      });
      expectCode(res, 403, "workspace_mismatch");
      expect(res.body.details).toMatchObject({ bound_workspace_id: h.a.ws1, requested_workspace_id: h.a.ws2 });
    }
    expect(h.services.store.memories.list({ workspaceId: h.a.ws2, afterId: 0, limit: 10 })).toEqual([]);
  });

  it("a workspace of another account is 404 workspace_not_found", async () => {
    const h = makeHarness();
    const res = await h.send("POST", BASE, {
      auth: h.key(),
      body: { kind: "voice", title: "t", content: "c", workspace_id: h.b.ws },
    });
    expectCode(res, 404, "workspace_not_found");
  });

  it("a read-only key gets 403 insufficient_scope", async () => {
    const h = makeHarness();
    const res = await h.send("POST", BASE, {
      auth: h.key({ scopes: ["read"] }),
      body: { kind: "voice", title: "t", content: "c" },
    });
    expectCode(res, 403, "insufficient_scope");
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ["no kind", { kind: undefined }, "body.kind"],
    ["an unknown kind", { kind: "tone" }, "body.kind"],
    ["an empty title", { title: "" }, "body.title"],
    ["a blank title", { title: "   " }, "body.title"],
    ["a title of 201 characters", { title: "t".repeat(201) }, "body.title"],
    ["a title that is not a string", { title: 5 }, "body.title"],
    ["no content", { content: undefined }, "body.content"],
    ["empty content", { content: "" }, "body.content"],
    ["content of 20,001 characters", { content: "c".repeat(20_001) }, "body.content"],
  ];
  it.each(invalid)("refuses %s with 400 validation_failed", async (_, change, path) => {
    const h = makeHarness();
    const res = await h.send("POST", BASE, {
      auth: h.key(),
      body: { kind: "voice", title: "Title", content: "Content", ...change },
    });
    expectCode(res, 400, "validation_failed");
    expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path);
  });

  it("titles a memory sent without one with its content's first words", async () => {
    const h = makeHarness();
    const short = await createMemory(h, h.key(), { title: undefined, content: "  Short sentences.\n No jargon.  " });
    expect(short.title).toBe("Short sentences. No jargon.");
    const long = await createMemory(h, h.key(), {
      title: undefined,
      content: "Say installers, never technicians, and address the reader as you, always.",
    });
    expect(long.title).toBe("Say installers, never technicians, and address the reader…");
    expect(h.services.store.memories.byId(long.id)?.title).toBe(long.title);
  });

  it("accepts the limits exactly: a 200-character title and 20,000 characters of content", async () => {
    const h = makeHarness();
    const m = await createMemory(h, h.key(), { title: "t".repeat(200), content: "c".repeat(20_000) });
    expect(m.title).toHaveLength(200);
    expect(m.content).toHaveLength(20_000);
  });
});

describe("listing memories", () => {
  it("lists the workspace's memories, oldest first, filtered by kind, paged by cursor", async () => {
    const h = makeHarness();
    const key = h.key();
    const made: number[] = [];
    for (let i = 0; i < 5; i++)
      made.push((await createMemory(h, key, { kind: i % 2 ? "context" : "voice", title: `m${i}` })).id);
    await createMemory(h, key, { workspace_id: h.a.ws2, title: "elsewhere" });

    const all = await h.send("GET", `${BASE}?limit=100`, { auth: key });
    expect(all.status).toBe(200);
    expect(all.headers.get("x-api-stability")).toBe("beta");
    expect(all.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(all.body.data.map((m: { id: number }) => m.id)).toEqual(made);

    const voice = await h.send("GET", `${BASE}?kind=voice`, { auth: key });
    expect(voice.body.data.map((m: { title: string }) => m.title)).toEqual(["m0", "m2", "m4"]);

    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const res: Answer = await h.send("GET", `${BASE}?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { auth: key });
      seen.push(...res.body.data.map((m: { id: number }) => m.id));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(made);

    const ws2 = await h.send("GET", `${BASE}?workspace_id=${h.a.ws2}`, { auth: key });
    expect(ws2.body.data.map((m: { title: string }) => m.title)).toEqual(["elsewhere"]);
  });

  it("a bound key lists its workspace and gets 403 naming another; other accounts' memories never show", async () => {
    const h = makeHarness();
    await createMemory(h, h.key(), { workspace_id: h.a.ws2, title: "in ws2" });
    await createMemory(h, h.key({ account: h.b.id }), { title: "of B" });
    const bound = h.key({ workspaceId: h.a.ws1 });
    expect((await h.send("GET", BASE, { auth: bound })).body.data).toEqual([]);
    expectCode(await h.send("GET", `${BASE}?workspace_id=${h.a.ws2}`, { auth: bound }), 403, "workspace_mismatch");
    const a = await h.send("GET", `${BASE}?workspace_id=${h.a.ws2}`, { auth: h.key() });
    expect(a.body.data.map((m: { title: string }) => m.title)).toEqual(["in ws2"]);
    expectCode(await h.send("GET", `${BASE}?workspace_id=${h.b.ws}`, { auth: h.key() }), 404, "workspace_not_found");
  });

  it.each([["kind=tone"], ["limit=0"], ["cursor=xyz"]])("refuses %s with 400", async (query) => {
    const h = makeHarness();
    expectCode(await h.send("GET", `${BASE}?${query}`, { auth: h.key() }), 400, "validation_failed");
  });
});

describe("one memory: read, change, delete", () => {
  it("reads, patches (only the fields given, stamping updated_at) and deletes", async () => {
    const h = makeHarness();
    const key = h.key();
    const m = await createMemory(h, key);
    const got = await h.send("GET", `${BASE}/${m.id}`, { auth: key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(m);

    h.clock.advance(60_000);
    const patched = await h.send("PATCH", `${BASE}/${m.id}`, {
      auth: key,
      body: { title: "New title", kind: "context" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: m.id, title: "New title", kind: "context", content: m.content });
    expect(patched.body.created_at).toBe(got.body.created_at);
    expect(patched.body.updated_at).toBe(new Date(h.clock.now()).toISOString());

    const content = await h.send("PATCH", `${BASE}/${m.id}`, { auth: key, body: { content: "Warm, plain words." } });
    expect(content.body).toMatchObject({ title: "New title", content: "Warm, plain words." });

    h.clock.advance(60_000);
    const empty = await h.send("PATCH", `${BASE}/${m.id}`, { auth: key, body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(content.body);

    const deleted = await h.send("DELETE", `${BASE}/${m.id}`, { auth: key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: m.id, deleted: true });
    expectCode(await h.send("GET", `${BASE}/${m.id}`, { auth: key }), 404, "memory_not_found");
    expectCode(await h.send("DELETE", `${BASE}/${m.id}`, { auth: key }), 404, "memory_not_found");
  });

  it.each([
    ["an empty title", { title: "" }, "body.title"],
    ["a long title", { title: "x".repeat(201) }, "body.title"],
    ["an unknown kind", { kind: "style" }, "body.kind"],
    ["too much content", { content: "x".repeat(20_001) }, "body.content"],
  ])("PATCH refuses %s with 400 and changes nothing", async (_, body, path) => {
    const h = makeHarness();
    const key = h.key();
    const m = await createMemory(h, key);
    const res = await h.send("PATCH", `${BASE}/${m.id}`, { auth: key, body });
    expectCode(res, 400, "validation_failed");
    expect(res.body.details.issues[0].path).toBe(path);
    expect((await h.send("GET", `${BASE}/${m.id}`, { auth: key })).body).toEqual(m);
  });

  const byId: { method: string; body?: unknown }[] = [
    { method: "GET" },
    { method: "PATCH", body: { title: "taken over" } },
    { method: "DELETE" },
  ];

  it.each(byId)(
    "$method of another account's memory is 404 memory_not_found, for keys and sessions",
    async ({ method, body }) => {
      const h = makeHarness();
      const theirs = await createMemory(h, h.key({ account: h.b.id }), { title: "B secret" });
      for (const auth of [h.key(), h.key({ workspaceId: h.a.ws1 }), await h.login("admin@a.test")]) {
        const res = await h.send(method, `${BASE}/${theirs.id}`, { auth, body });
        expectCode(res, 404, "memory_not_found");
        expect(JSON.stringify(res.body)).not.toContain("B secret");
      }
      expect((await h.send("GET", `${BASE}/${theirs.id}`, { auth: h.key({ account: h.b.id }) })).body.title).toBe(
        "B secret",
      );
    },
  );

  it.each(byId)(
    "$method of a ws2 memory with a key bound to ws1 is 403 workspace_mismatch",
    async ({ method, body }) => {
      const h = makeHarness();
      const m = await createMemory(h, h.key(), { workspace_id: h.a.ws2, title: "ws2 note" });
      const res = await h.send(method, `${BASE}/${m.id}`, { auth: h.key({ workspaceId: h.a.ws1 }), body });
      expectCode(res, 403, "workspace_mismatch");
      expect(res.body.details).toMatchObject({ bound_workspace_id: h.a.ws1, requested_workspace_id: h.a.ws2 });
      // The same key bound to ws2, or an unbound one, reaches it.
      expect((await h.send(method, `${BASE}/${m.id}`, { auth: h.key({ workspaceId: h.a.ws2 }), body })).status).toBe(
        200,
      );
    },
  );

  it.each(byId)(
    "$method by id naming another workspace_id than the memory's is 404 memory_not_found",
    async ({ method, body }) => {
      const h = makeHarness();
      const m = await createMemory(h, h.key(), { workspace_id: h.a.ws2, title: "ws2 note" });
      const callers = [method === "GET" ? h.key({ scopes: ["read"] }) : h.key(), await sessionOf(h, "admin@a.test")];
      for (const auth of callers) {
        const res = await h.send(method, `${BASE}/${m.id}?workspace_id=${h.a.ws1}`, { auth, body });
        expectErrorBody(res, 404, "memory_not_found");
        expect(JSON.stringify(res.body)).not.toContain("ws2 note");
      }
      expect(h.services.store.memories.byId(m.id)?.title).toBe("ws2 note");
      // A key bound to ws1 is still refused as such, named workspace or not.
      expectErrorBody(
        await h.send(method, `${BASE}/${m.id}?workspace_id=${h.a.ws1}`, {
          auth: h.key({ workspaceId: h.a.ws1 }),
          body,
        }),
        403,
        "workspace_mismatch",
      );
      const own = await h.send(method, `${BASE}/${m.id}?workspace_id=${h.a.ws2}`, { auth: callers[1], body });
      expect(own.status).toBe(200);
    },
  );

  it.each([{ method: "PATCH", body: { title: "x" } }, { method: "DELETE" }])(
    "$method with a read-only key is 403 insufficient_scope",
    async ({ method, body }) => {
      const h = makeHarness();
      const m = await createMemory(h, h.key());
      expectCode(
        await h.send(method, `${BASE}/${m.id}`, { auth: h.key({ scopes: ["read"] }), body }),
        403,
        "insufficient_scope",
      );
      expect((await h.send("GET", `${BASE}/${m.id}`, { auth: h.key({ scopes: ["read"] }) })).status).toBe(200);
    },
  );

  it.each([["0"], ["abc"], ["-1"]])("an id of %s is 400 validation_failed", async (id) => {
    const h = makeHarness();
    expectCode(await h.send("GET", `${BASE}/${id}`, { auth: h.key() }), 400, "validation_failed");
  });
});

describe("memories.byIds (for the generator)", () => {
  it("returns the account's memories among the ids, in the order asked, each once; others are left out", async () => {
    const h = makeHarness();
    const key = h.key();
    const m1 = await createMemory(h, key, { title: "one" });
    const m2 = await createMemory(h, key, { title: "two", workspace_id: h.a.ws2 });
    const theirs = await createMemory(h, h.key({ account: h.b.id }), { title: "B" });
    const rows = h.services.store.memories.byIds(h.a.id, [m2.id, 999_999, theirs.id, m1.id, m2.id]);
    expect(rows.map((r) => r.title)).toEqual(["two", "one"]);
    expect(rows[0]).toMatchObject({ account_id: h.a.id, workspace_id: h.a.ws2, kind: "voice" });
    expect(h.services.store.memories.byIds(h.a.id, [])).toEqual([]);
  });

  it("memories go with their workspace", async () => {
    const h = makeHarness();
    const m = await createMemory(h, h.key(), { workspace_id: h.a.ws2 });
    h.services.store.workspaces.remove(h.a.ws2);
    expect(h.services.store.memories.byId(m.id)).toBeUndefined();
  });
});
