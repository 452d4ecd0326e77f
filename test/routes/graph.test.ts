import { describe, expect, it, vi } from "vitest";
import { GraphService } from "../../src/domain/graph.js";
import { inlinePool, type WorkerPool } from "../../src/workers/pool.js";
import { ACME, acmeGraph, addReference, byId, getGraph, type Node } from "../helpers/graph.js";
import { makeHarness, storeReference } from "../helpers/harness.js";
import { expectErrorBody, generateAndFinalize } from "../helpers/http.js";

describe("GET /api/v1/knowledge-graph", () => {
  it("shows the entities and co-occurrences of a workspace's references, recomputed in the background", async () => {
    const { h, key, refId } = await acmeGraph();

    const res = await getGraph(h, key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get("x-api-stability")).toBe("beta");
    expect(Object.keys(res.body).sort()).toEqual([
      "edges",
      "has_more",
      "has_more_edges",
      "next_cursor",
      "nodes",
      "pending_sources",
      "updated_at",
      "workspace_id",
    ]);
    expect(res.body).toMatchObject({
      workspace_id: h.a.ws1,
      pending_sources: 0,
      updated_at: new Date(h.clock.now()).toISOString(),
      has_more: false,
      next_cursor: null,
    });
    const nodes = byId(res.body.nodes);
    const source = [{ kind: "reference", id: refId }];
    expect(nodes.get("acme-corp")).toEqual({
      id: "acme-corp",
      label: "Acme Corp",
      type: "proper_noun",
      mentions: 2,
      source_count: 1,
      sources: source,
    });
    expect(nodes.get("new-york")).toMatchObject({ label: "New York", type: "proper_noun", mentions: 2 });
    expect(nodes.get("jane-doe")).toMatchObject({ label: "Jane Doe", type: "proper_noun", mentions: 2 });
    expect(nodes.get("globex")).toMatchObject({ label: "Globex", type: "proper_noun", mentions: 2 });
    expect(nodes.get("weekly-planning-review")).toMatchObject({ type: "key_phrase", mentions: 2 });
    expect(res.body.edges).toContainEqual({ source: "acme-corp", target: "new-york", weight: 2 });
    expect(res.body.edges).toContainEqual({ source: "jane-doe", target: "new-york", weight: 1 });
    // Nodes by mentions; edges heaviest first.
    const mentions = res.body.nodes.map((n: Node) => n.mentions);
    expect(mentions).toEqual([...mentions].sort((a, b) => b - a));
    const weights = res.body.edges.map((e: { weight: number }) => e.weight);
    expect(weights).toEqual([...weights].sort((a, b) => b - a));
  });

  it("filters by type, min_weight and limit", async () => {
    const { h, key } = await acmeGraph();

    const phrases = await getGraph(h, key, "type=key_phrase");
    expect(phrases.body.nodes.length).toBeGreaterThan(0);
    expect(phrases.body.nodes.every((n: Node) => n.type === "key_phrase")).toBe(true);
    const names = await getGraph(h, key, "type=proper_noun");
    expect(names.body.nodes.every((n: Node) => n.type === "proper_noun")).toBe(true);
    // Edges only between the nodes returned.
    const ids = new Set(names.body.nodes.map((n: Node) => n.id));
    for (const e of names.body.edges) expect(ids.has(e.source) && ids.has(e.target)).toBe(true);

    const heavy = await getGraph(h, key, "min_weight=2");
    expect(heavy.body.edges.length).toBeGreaterThan(0);
    expect(heavy.body.edges.every((e: { weight: number }) => e.weight >= 2)).toBe(true);
    expect(heavy.body.nodes.length).toBe((await getGraph(h, key)).body.nodes.length);

    // A graph cut by the limit says so; the whole graph does not.
    const all = await getGraph(h, key, "limit=500");
    expect(all.body.has_more).toBe(false);
    const count = all.body.nodes.length;
    expect(count).toBeGreaterThan(2);
    const top = await getGraph(h, key, "limit=2");
    expect(top.body.nodes).toHaveLength(2);
    expect(top.body.has_more).toBe(true);
    expect((await getGraph(h, key, `limit=${count - 1}`)).body.has_more).toBe(true);
    const exact = await getGraph(h, key, `limit=${count}`);
    expect(exact.body.nodes).toHaveLength(count);
    expect(exact.body.has_more).toBe(false);
    for (const query of ["type=person", "min_weight=0", "limit=0", "limit=501", "min_weight=x", "edge_limit=0"])
      expectErrorBody(await getGraph(h, key, query), 400, "validation_failed");
  });

  it("answers at most edge_limit edges, the heaviest, and says when it left some out", async () => {
    const { h, key } = await acmeGraph();
    const whole = await getGraph(h, key);
    expect(whole.body.has_more_edges).toBe(false);
    const edges = whole.body.edges as { source: string; target: string; weight: number }[];
    expect(edges.length).toBeGreaterThan(2);
    const cut = await getGraph(h, key, "edge_limit=2");
    expect(cut.body.edges).toEqual(edges.slice(0, 2));
    expect(cut.body.has_more_edges).toBe(true);
    expect(cut.body.nodes).toEqual(whole.body.nodes);
    const exact = await getGraph(h, key, `edge_limit=${edges.length}`);
    expect(exact.body).toMatchObject({ edges, has_more_edges: false });
  });

  it("drops a deleted reference's entities, and takes in finalized contents but not drafts", async () => {
    const h = makeHarness();
    const key = h.key();
    const refId = await addReference(h, key, ACME);
    await addReference(h, key, "Initech moved to Austin. Initech hired Peter Gibbons in Austin.");
    await h.services.graph.idle();
    expect(byId((await getGraph(h, key)).body.nodes).has("acme-corp")).toBe(true);

    const del = await h.send("DELETE", `/api/v1/reference-materials/${refId}`, { auth: key });
    expect(del.status).toBe(200);
    await h.services.graph.idle();
    const after = byId((await getGraph(h, key)).body.nodes);
    for (const gone of ["acme-corp", "new-york", "jane-doe", "globex"]) expect(after.has(gone), gone).toBe(false);
    expect(after.get("initech")).toMatchObject({ label: "Initech", mentions: 2 });
    expect((await getGraph(h, key)).body.edges).not.toContainEqual(expect.objectContaining({ source: "acme-corp" }));

    // A draft does not count; its finalized text does.
    await h.send("POST", "/api/v1/contents", { auth: key, body: { content: "Umbrella Corp opened in Raccoon City." } });
    const gen = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "Write about planning reviews" },
    });
    expect(gen.status, JSON.stringify(gen.body)).toBe(201);
    await h.services.graph.idle();
    expect(byId((await getGraph(h, key)).body.nodes).has("umbrella-corp")).toBe(false);
    const fin = await h.send("POST", "/api/v1/finalizeContent", {
      auth: key,
      body: {
        content_id: gen.body.content_id,
        finalized_content: "# Update\n\nHooli Labs opened in Palo Alto. Hooli Labs hired Gavin Belson.",
        edit_seconds: 10,
      },
    });
    expect(fin.status).toBe(200);
    await h.services.graph.idle();
    const withContent = await getGraph(h, key);
    expect(byId(withContent.body.nodes).get("hooli-labs")).toMatchObject({
      sources: [{ kind: "content", id: gen.body.content_id }],
    });
    expect(withContent.body.edges).toContainEqual({ source: "hooli-labs", target: "palo-alto", weight: 1 });

    // Deleting the content removes what it yielded.
    await h.send("DELETE", `/api/v1/contents/${gen.body.content_id}`, { auth: key });
    await h.services.graph.idle();
    expect(byId((await getGraph(h, key)).body.nodes).has("hooli-labs")).toBe(false);
  });

  it("never makes the request that changed a source wait for the graph", async () => {
    const h = makeHarness();
    const key = h.key();
    // A pool whose extractions wait until released.
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const inner = inlinePool();
    const pool: WorkerPool = {
      async run(name, input) {
        if (name === "extractGraph") await gate;
        return inner.run(name, input);
      },
      close: () => inner.close(),
    };
    h.services.graph = new GraphService(h.services.store, pool, h.clock, h.logger);

    await addReference(h, key, ACME);
    const before = await getGraph(h, key);
    expect(before.body).toMatchObject({ nodes: [], edges: [], updated_at: null, pending_sources: 1 });
    release();
    await h.services.graph.idle();
    const after = await getGraph(h, key);
    expect(after.body.pending_sources).toBe(0);
    expect(byId(after.body.nodes).has("acme-corp")).toBe(true);
  });

  it("names the source a request added or finalized, and none for a deletion", async () => {
    const h = makeHarness();
    const key = h.key();
    const touch = vi.spyOn(h.services.graph, "touch");
    const refId = await addReference(h, key, ACME);
    expect(touch).toHaveBeenLastCalledWith(h.a.ws1, { kind: "reference", id: refId, version: 0 });

    const { generated: gen } = await generateAndFinalize(
      h,
      key,
      { template_id: 1, user_direction: "Write about planning reviews" },
      { text: "Hooli Labs opened in Palo Alto.", editSeconds: 10 },
    );
    const version = h.services.store.contents.byId(gen.body.content_id)!.version_count;
    expect(touch).toHaveBeenLastCalledWith(h.a.ws1, { kind: "content", id: gen.body.content_id, version });
    await h.services.graph.idle();
    expect(byId((await getGraph(h, key)).body.nodes).has("hooli-labs")).toBe(true);

    // Something went: the next catch-up scans the workspace.
    await h.send("DELETE", `/api/v1/reference-materials/${refId}`, { auth: key });
    expect(touch).toHaveBeenLastCalledWith(h.a.ws1);
    await h.send("DELETE", `/api/v1/contents/${gen.body.content_id}`, { auth: key });
    expect(touch).toHaveBeenLastCalledWith(h.a.ws1);
    await h.services.graph.idle();
    expect((await getGraph(h, key)).body).toMatchObject({ nodes: [], edges: [], pending_sources: 0 });
  });

  it("catches up on sources it never saw (a change lost to a restart) when read", async () => {
    const h = makeHarness();
    // A reference stored without the route, so no change was announced.
    storeReference(h.services.store, {
      accountId: h.a.id,
      workspaceId: h.a.ws1,
      content: ACME,
      now: new Date(h.clock.now()).toISOString(),
    });
    const key = h.key();
    expect((await getGraph(h, key)).body.pending_sources).toBe(1);
    await h.services.graph.idle();
    expect(byId((await getGraph(h, key)).body.nodes).has("acme-corp")).toBe(true);
  });
});

describe("graph reads of an unchanged graph", () => {
  it("are answered from memory until a source is taken in or removed, or the graph catches up", async () => {
    const { h, key, refId } = await acmeGraph();
    const graph = h.services.store.graph;
    const nodes = vi.spyOn(graph, "nodes");
    const search = vi.spyOn(graph, "search");
    const first = await getGraph(h, key);
    expect(nodes).toHaveBeenCalledTimes(1);
    // The same read again, and the same search: from memory. Another query is read.
    expect((await getGraph(h, key)).body).toEqual(first.body);
    expect(nodes).toHaveBeenCalledTimes(1);
    await getGraph(h, key, "limit=2");
    expect(nodes).toHaveBeenCalledTimes(2);
    const entities = () => h.send("GET", "/api/v1/knowledge-graph/entities?q=acme", { auth: key });
    const found = await entities();
    expect((await entities()).body).toEqual(found.body);
    expect(search).toHaveBeenCalledTimes(1);
    // Another workspace's change does not matter.
    await addReference(h, key, "Initech moved to Austin. Initech hired Peter Gibbons in Austin.", h.a.ws2);
    await h.services.graph.idle();
    await getGraph(h, key);
    expect(nodes).toHaveBeenCalledTimes(2);
    // A source taken in: read again, with it.
    await addReference(h, key, "Hooli Labs opened in Palo Alto. Hooli Labs hired Gavin Belson.");
    await h.services.graph.idle();
    expect(byId((await getGraph(h, key)).body.nodes).has("hooli-labs")).toBe(true);
    expect(nodes).toHaveBeenCalledTimes(3);
    // A source removed: gone at once, before any catch-up.
    expect((await h.send("DELETE", `/api/v1/reference-materials/${refId}`, { auth: key })).status).toBe(200);
    expect(byId((await getGraph(h, key)).body.nodes).has("acme-corp")).toBe(false);
    expect((await entities()).body.data).toEqual([]);
    // The graph catching up (a new updated_at) is a change too.
    const before = (await getGraph(h, key)).body.updated_at;
    const calls = nodes.mock.calls.length;
    h.clock.advance(1_000);
    graph.markUpdated(h.a.ws1, new Date(h.clock.now()).toISOString());
    const after = await getGraph(h, key);
    expect(after.body.updated_at).not.toBe(before);
    expect(nodes).toHaveBeenCalledTimes(calls + 1);
  });
});

describe("GET /api/v1/knowledge-graph/entities", () => {
  it("searches labels case-insensitively, prefix matches first, each with its related entities", async () => {
    const { h, key } = await acmeGraph();

    const acme = await h.send("GET", "/api/v1/knowledge-graph/entities?q=ACM", { auth: key });
    expect(acme.status).toBe(200);
    expect(acme.body.data.map((e: Node) => e.id)).toEqual(["acme-corp"]);
    expect(acme.body.data[0].related[0]).toEqual({ id: "new-york", label: "New York", type: "proper_noun", weight: 2 });
    expect(acme.body.data[0].related.map((r: { id: string }) => r.id)).toContain("jane-doe");

    const york = await h.send("GET", "/api/v1/knowledge-graph/entities?q=york", { auth: key });
    expect(york.body.data.map((e: Node) => e.id)).toEqual(["new-york"]);

    // Word-start matches before matches inside a word; "o" matches many.
    const all = await h.send("GET", "/api/v1/knowledge-graph/entities?q=o&limit=2", { auth: key });
    expect(all.body.data).toHaveLength(2);
    expect(all.body.has_more).toBe(true);
    const next = await h.send("GET", `/api/v1/knowledge-graph/entities?q=o&limit=2&cursor=${all.body.next_cursor}`, {
      auth: key,
    });
    const seen = [...all.body.data, ...next.body.data].map((e: Node) => e.id);
    expect(new Set(seen).size).toBe(seen.length);

    const none = await h.send("GET", "/api/v1/knowledge-graph/entities?q=zzz", { auth: key });
    expect(none.body).toEqual({ data: [], has_more: false, next_cursor: null });
    const phrases = await h.send("GET", "/api/v1/knowledge-graph/entities?type=key_phrase", { auth: key });
    expect(phrases.body.data.every((e: Node) => e.type === "key_phrase")).toBe(true);
  });

  it("lists every entity without q; an empty or blank q is 400, as on every list's filters", async () => {
    const { h, key } = await acmeGraph();
    const every = await h.send("GET", "/api/v1/knowledge-graph/entities?limit=100", { auth: key });
    expect(every.status).toBe(200);
    expect(every.body.data.map((e: Node) => e.id)).toEqual(expect.arrayContaining(["acme-corp", "new-york"]));
    for (const q of ["", "%20%20"]) {
      const res = await h.send("GET", `/api/v1/knowledge-graph/entities?q=${q}`, { auth: key });
      const details = expectErrorBody(res, 400, "validation_failed");
      expect(details.issues).toEqual([
        { path: "query.q", message: expect.stringContaining("leave the parameter out") },
      ]);
    }
  });
});

describe("GET /api/v1/knowledge-graph/entities: pages while the graph changes", () => {
  it("goes on after the last entity shown, so an entity that moves ahead is neither repeated nor skips another", async () => {
    const h = makeHarness();
    const key = h.key();
    const names = ["Alpha Corp", "Bravo Labs", "Charlie Inc", "Delta Group", "Echo Systems", "Foxtrot Media"];
    // Alpha mentioned 6 times, Bravo 5, ... Foxtrot once: the search ranks them in that order.
    const text = names.flatMap((n, i) => Array.from({ length: 6 - i }, (_, k) => `We met ${n} today number ${k}.`));
    await addReference(h, key, text.join(" "));
    await h.services.graph.idle();

    const path = "/api/v1/knowledge-graph/entities?type=proper_noun&limit=2";
    const seen: string[] = [];
    let res = await h.send("GET", path, { auth: key });
    for (let page = 1; ; page++) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      seen.push(...res.body.data.map((e: Node) => e.label));
      if (!res.body.has_more) break;
      if (page === 1) {
        // Foxtrot Media jumps from last to first between the pages.
        await addReference(h, key, Array.from({ length: 10 }, (_, k) => `Then Foxtrot Media again ${k}.`).join(" "));
        await h.services.graph.idle();
      }
      res = await h.send("GET", `${path}&cursor=${res.body.next_cursor}`, { auth: key });
    }
    // An offset had answered Alpha, Bravo, Bravo, Charlie, Delta, Echo: Foxtrot's move shifted every later entity.
    expect(seen).toEqual(names.slice(0, 5));

    for (const cursor of [Buffer.from("7").toString("base64url"), Buffer.from('"9:1:x"').toString("base64url")]) {
      const bad = await h.send("GET", `${path}&cursor=${cursor}`, { auth: key });
      expectErrorBody(bad, 400, "validation_failed");
    }
  });
});
