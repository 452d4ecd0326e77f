/**
 * The knowledge graph's totals and queue (sql/0023_graph_totals.sql): nodes and edges equal a sum of the mention and
 * pair rows from scratch after any sequence of sources added, replaced and deleted; whether a graph is behind is one
 * row the writes keep; reads page by index seeks.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import type { ExtractedDocument } from "../../src/db/graph.js";
import { type GraphSource, graphReads, graphScans, SEARCH_AHEAD, type SearchKey } from "../../src/db/graph.js";
import { iso } from "../../src/domain/clock.js";
import { makeHarness, storeReference } from "../helpers/harness.js";

/** The nodes and edges of a workspace summed from scratch, as the reads summed them before sql/0023. */
const FROM_SCRATCH_NODES = `SELECT m.entity AS id, sum(m.mentions) AS mentions, count(*) AS source_count,
    CASE WHEN max(m.type = 'proper_noun') = 1 THEN 'proper_noun' ELSE 'key_phrase' END AS type,
    (SELECT l.label FROM graph_mentions AS l WHERE l.workspace_id = @ws AND l.entity = m.entity
     ORDER BY l.type = 'proper_noun' DESC, l.mentions DESC, l.label LIMIT 1) AS label
  FROM graph_mentions AS m WHERE m.workspace_id = @ws GROUP BY m.entity ORDER BY m.entity`;
const KEPT_NODES = `SELECT entity AS id, mentions, source_count, type, label FROM graph_nodes
  WHERE workspace_id = @ws ORDER BY entity`;
const FROM_SCRATCH_EDGES = `SELECT source, target, sum(weight) AS weight FROM graph_pairs WHERE workspace_id = @ws
  GROUP BY source, target ORDER BY source, target`;
const KEPT_EDGES = "SELECT source, target, weight FROM graph_edges WHERE workspace_id = @ws ORDER BY source, target";

/** A small deterministic random number generator (mulberry32), so that a failing sequence can be replayed. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ENTITIES = ["acme", "globex", "new-york", "jane-doe", "planning-review", "ballast-mounts", "q3-roadmap"];

/** A random extraction over a few shared entities, with labels and types that differ between documents. */
function extraction(next: () => number): ExtractedDocument {
  const ids = ENTITIES.filter(() => next() < 0.5);
  const entities = ids.map((id) => ({
    id,
    label: next() < 0.5 ? id.toUpperCase() : id,
    type: next() < 0.5 ? ("proper_noun" as const) : ("key_phrase" as const),
    mentions: 1 + Math.floor(next() * 4),
  }));
  const pairs = [];
  for (let i = 0; i < ids.length; i++)
    for (let j = i + 1; j < ids.length; j++)
      if (next() < 0.5) {
        const [source, target] = [ids[i], ids[j]].sort();
        pairs.push({ source, target, weight: 1 + Math.floor(next() * 3) });
      }
  return { entities, pairs };
}

function setup() {
  const h = makeHarness();
  const store = h.services.store;
  const now = iso(h.clock.now());
  const reference = (workspaceId = h.a.ws1) =>
    storeReference(store, { accountId: h.a.id, workspaceId, content: "x", now }).id;
  const save = (id: number, extracted: ExtractedDocument, workspaceId = h.a.ws1) =>
    store.graph.saveDocument(workspaceId, { kind: "reference", id, version: 0 }, extracted, now);
  const all = (sql: string, ws: string) => h.db.prepare(sql).all({ ws });
  return { h, store, now, reference, save, all };
}

describe("knowledge graph totals", () => {
  it.each([1, 2, 3, 4, 5])(
    "equal a sum from scratch after random adds, replacements and deletions (seed %i)",
    (seed) => {
      const { h, store, reference, save, all } = setup();
      const next = random(seed);
      const live: number[] = [];
      for (let step = 0; step < 60; step++) {
        const roll = next();
        if (roll < 0.45 || live.length === 0) {
          const id = reference();
          save(id, extraction(next));
          live.push(id);
        } else if (roll < 0.75) save(live[Math.floor(next() * live.length)], extraction(next));
        else store.references.remove(live.splice(Math.floor(next() * live.length), 1)[0]);
        expect(all(KEPT_NODES, h.a.ws1), `step ${step}`).toEqual(all(FROM_SCRATCH_NODES, h.a.ws1));
        expect(all(KEPT_EDGES, h.a.ws1), `step ${step}`).toEqual(all(FROM_SCRATCH_EDGES, h.a.ws1));
      }
    },
  );

  it("go with a deleted workspace's documents, and keep other workspaces' apart", () => {
    const { h, store, reference, save, all } = setup();
    const next = random(9);
    save(reference(h.a.ws1), extraction(next));
    save(reference(h.a.ws2), extraction(next));
    const ws2Nodes = all(KEPT_NODES, h.a.ws2);
    expect(ws2Nodes).toEqual(all(FROM_SCRATCH_NODES, h.a.ws2));
    store.workspaces.remove(h.a.ws1);
    expect(all(KEPT_NODES, h.a.ws1)).toEqual([]);
    expect(all(KEPT_EDGES, h.a.ws1)).toEqual([]);
    expect(all(KEPT_NODES, h.a.ws2)).toEqual(ws2Nodes);
  });
});

/** The backfill section of sql/0023: what it runs on a database of an older version, before its triggers exist. */
function backfillSql(): string {
  const sql = readFileSync(new URL("../../sql/0023_graph_totals.sql", import.meta.url), "utf8");
  return sql.slice(sql.indexOf("-- Backfill"), sql.indexOf("CREATE TRIGGER"));
}

describe("knowledge graph backfill (sql/0023)", () => {
  it("sums an existing graph's totals and queues what it has yet to take in, as the writes would have", () => {
    const { h, store, now, reference, save, all } = setup();
    const next = random(7);
    const live = Array.from({ length: 12 }, () => reference());
    for (const id of live.slice(0, 9)) save(id, extraction(next));
    const row = store.contents.create({
      accountId: h.a.id,
      workspaceId: h.a.ws1,
      templateId: null,
      title: "t",
      content: "x",
      status: "finalized",
      now,
    });
    store.contents.save({ ...row, version_count: 2 }, now);
    const kept = {
      nodes: all(KEPT_NODES, h.a.ws1),
      edges: all(KEPT_EDGES, h.a.ws1),
      queue: h.db.prepare("SELECT * FROM graph_queue ORDER BY workspace_id, kind, source_id").all(),
      pending: h.db.prepare("SELECT * FROM graph_pending WHERE count > 0 ORDER BY workspace_id").all(),
    };
    expect(store.graph.pendingCount(h.a.ws1)).toBe(4);
    h.db.exec("DELETE FROM graph_nodes; DELETE FROM graph_edges; DELETE FROM graph_queue; DELETE FROM graph_pending;");
    // As in the migration, where the queue's count is summed before its trigger exists.
    h.db.exec("DROP TRIGGER graph_queue_added");
    h.db.exec(backfillSql());
    expect(all(KEPT_NODES, h.a.ws1)).toEqual(kept.nodes);
    expect(all(KEPT_EDGES, h.a.ws1)).toEqual(kept.edges);
    expect(h.db.prepare("SELECT * FROM graph_queue ORDER BY workspace_id, kind, source_id").all()).toEqual(kept.queue);
    expect(h.db.prepare("SELECT * FROM graph_pending ORDER BY workspace_id").all()).toEqual(kept.pending);
  });
});

describe("knowledge graph queue", () => {
  it("counts the sources to take in as they change, and settles as the graph takes them in", () => {
    const { h, store, now, reference, save } = setup();
    const graph = store.graph;
    const ws = h.a.ws1;
    const first = reference();
    const second = reference();
    expect(graph.pendingCount(ws)).toBe(2);
    save(first, { entities: [], pairs: [] });
    expect(graph.pendingCount(ws)).toBe(1);
    store.references.remove(second);
    expect(graph.pendingCount(ws)).toBe(0);

    const row = store.contents.create({
      accountId: h.a.id,
      workspaceId: ws,
      templateId: null,
      title: "t",
      content: "x",
      status: "generated",
      now,
    });
    expect(graph.pendingCount(ws)).toBe(0);
    const finalized = store.contents.save({ ...row, status: "finalized", version_count: 1 }, now);
    expect(graph.pendingCount(ws)).toBe(1);
    graph.saveDocument(ws, { kind: "content", id: row.id, version: 1 }, { entities: [], pairs: [] }, now);
    expect(graph.pendingCount(ws)).toBe(0);
    // Back to a draft: its document is to drop; once dropped, nothing is pending.
    store.contents.save({ ...finalized, status: "draft" }, now);
    expect(graph.pendingCount(ws)).toBe(1);
    expect(graph.removeStale(ws)).toBe(1);
    expect(graph.pendingCount(ws)).toBe(0);
    // Finalized then deleted before it was taken in.
    const gone = store.contents.save({ ...finalized, status: "finalized", version_count: 2 }, now);
    expect(graph.pendingCount(ws)).toBe(1);
    store.contents.remove(gone.id);
    expect(graph.pendingCount(ws)).toBe(0);
    // What the queue finds to extract is what a scan of the workspace finds.
    const other = reference();
    const later = store.contents.create({
      accountId: h.a.id,
      workspaceId: ws,
      templateId: null,
      title: "t",
      content: "x",
      status: "finalized",
      now,
    });
    const scanned = h.db.prepare<{ ws: string }, GraphSource>(graphScans(h.db).pending).all({ ws });
    expect(scanned.map((s) => s.id).sort()).toEqual([other, later.id].sort());
    expect(graph.pendingSources(ws)).toEqual(
      [...scanned].sort((a, b) => (a.kind === b.kind ? a.id - b.id : a.kind < b.kind ? -1 : 1)),
    );
    expect(graph.pendingCount(h.a.ws2)).toBe(0);
  });

  it("tells whether a graph is behind from one row, without the scans", () => {
    const { h, store, reference } = setup();
    reference();
    const pending = vi.spyOn(store.graph, "pendingSources");
    const stale = vi.spyOn(store.graph, "staleCount");
    expect(h.services.graph.behind(h.a.ws1)).toBe(1);
    expect(pending).not.toHaveBeenCalled();
    expect(stale).not.toHaveBeenCalled();
    const plan = h.db
      .prepare(`EXPLAIN QUERY PLAN ${graphReads(h.db).pending}`)
      .all("w")
      .map((r) => (r as { detail: string }).detail);
    expect(plan).toEqual(["SEARCH graph_pending USING PRIMARY KEY (workspace_id=?)"]);
  });
});

describe("knowledge graph reads", () => {
  const planOf = (db: ReturnType<typeof makeHarness>["db"], sql: string) =>
    db
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all({ ws: "w", q: "a", type: "proper_noun", limit: 21, mentions: 3, afterId: "a", id: "e", after: 0 })
      .map((r) => (r as { detail: string }).detail);

  it("seek their pages in an index, never scanning or sorting a workspace's nodes or mentions", () => {
    const { h } = setup();
    for (const sql of [
      graphReads(h.db).tied(false),
      graphReads(h.db).tied(true),
      graphReads(h.db).below(false),
      graphReads(h.db).below(true),
      graphReads(h.db).sources,
      graphReads(h.db).queued,
    ]) {
      const plan = planOf(h.db, sql);
      expect(plan.join("\n"), sql).not.toMatch(/SCAN (n|m|d|graph_\w+)\b|TEMP B-TREE/);
      expect(plan[0], sql).toMatch(
        /^SEARCH (n USING INDEX graph_nodes_top|m USING COVERING INDEX graph_mentions_entity|q USING PRIMARY KEY) \(workspace_id=\?/,
      );
    }
  });

  it("find a search's label-start matches in the top index, and both ends of an entity's edges by index", () => {
    const { h } = setup();
    const reads = graphReads(h.db);
    for (const [sql, index] of [
      [reads.labelStarts(false), "COVERING INDEX"],
      [reads.labelStarts(true), "INDEX"],
    ]) {
      const plan = planOf(h.db, sql);
      // Without a type, the walk reads the index alone (sql/0027_graph_search_walk.sql).
      expect(plan, sql).toContain(`SEARCH t USING ${index} graph_nodes_top (workspace_id=? AND mentions<?)`);
      // The page's rows (at most its limit) are sorted again once read, nothing before.
      expect(plan.join("\n"), sql).not.toMatch(/SCAN (t|n|graph_nodes)\b/);
      expect(
        plan.filter((step) => step.includes("TEMP B-TREE")),
        sql,
      ).toEqual(["USE TEMP B-TREE FOR ORDER BY"]);
      expect(plan.at(-1), sql).toBe("USE TEMP B-TREE FOR ORDER BY");
    }
    // Both halves seek the entity: a walk of the workspace's edges (`PRIMARY KEY (workspace_id=?)`) took 30-40 ms
    // for each entity of a search at 335,000 edges.
    // Nodes by id are sought by their key, never by a walk of the workspace's nodes in mention order.
    const byIds = h.db
      .prepare(`EXPLAIN QUERY PLAN ${reads.byIds}`)
      .all({ ws: "w", ids: '["a","b"]' })
      .map((r) => (r as { detail: string }).detail);
    expect(byIds[0]).toBe("SEARCH n USING PRIMARY KEY (workspace_id=? AND entity=?)");
    const related = planOf(h.db, reads.related);
    expect(related).toContain("SEARCH graph_edges USING PRIMARY KEY (workspace_id=? AND source=?)");
    expect(related).toContain("SEARCH graph_edges USING INDEX graph_edges_target (workspace_id=? AND target=?)");
  });

  it("search pages in rank, then mentions order, past the label-start walk's window too", () => {
    const { store, reference, save, h } = setup();
    const ws = h.a.ws1;
    // More nodes than the walk looks through: "alpha" starts labels both inside its window (the most mentioned) and
    // past it, is inside words and labels elsewhere; "omega" starts labels only past the window.
    const entities = Array.from({ length: SEARCH_AHEAD + 300 }, (_, i) => {
      const label =
        i % 50 === 0 ? `Alpha ${i}` : i % 7 === 0 ? `Beta alpha ${i}` : i % 11 === 0 ? `Xalpha ${i}` : `Node ${i}`;
      return {
        id: `e${i}`,
        label: i >= SEARCH_AHEAD + 200 ? `Omega ${i}` : label,
        type: "key_phrase" as const,
        mentions: 10_000 - i,
      };
    });
    save(reference(), { entities, pairs: [] });
    const rankOf = (search: string, q: string) => (search.startsWith(q) ? 0 : search.includes(` ${q}`) ? 1 : 2);
    for (const q of ["alpha", "omega", "a"]) {
      const expected = entities
        .filter((e) => e.label.toLowerCase().includes(q))
        .map((e) => ({ id: e.id, rank: rankOf(e.label.toLowerCase(), q), mentions: e.mentions }))
        .sort((a, b) => a.rank - b.rank || b.mentions - a.mentions || (a.id < b.id ? -1 : 1));
      const seen: { id: string; rank: number; mentions: number }[] = [];
      let after: SearchKey | null = null;
      for (;;) {
        const page = store.graph.search({ workspaceId: ws, q, type: null, limit: 40, after });
        seen.push(...page.map((n) => ({ id: n.id, rank: n.rank, mentions: n.mentions })));
        if (page.length < 40) break;
        const last = page[page.length - 1];
        after = { rank: last.rank, mentions: last.mentions, id: last.id };
      }
      expect(seen, q).toEqual(expected);
    }
  });

  it("page the nodes by mentions and a node's sources, each exactly once", () => {
    const { h, store, reference, save } = setup();
    const ws = h.a.ws1;
    const ids: number[] = [];
    // 30 entities: entity i is in the first i+1 of 30 sources, so mention counts tie and differ.
    for (let s = 0; s < 30; s++) {
      const id = reference();
      ids.push(id);
      const entities = Array.from({ length: 30 - s }, (_, k) => ({
        id: `e${String(k + s).padStart(2, "0")}`,
        label: `E${k + s}`,
        type: "key_phrase" as const,
        mentions: 1,
      }));
      save(id, { entities, pairs: [] });
    }
    const seen: string[] = [];
    let after = null;
    for (;;) {
      const page = store.graph.nodes(ws, null, 7, after);
      seen.push(...page.map((n) => n.id));
      if (page.length < 7) break;
      const last = page[page.length - 1];
      after = { mentions: last.mentions, id: last.id };
    }
    const all = store.graph.nodes(ws, null, 1000);
    expect(seen).toEqual(all.map((n) => n.id));
    expect(new Set(seen).size).toBe(30);
    const mentions = all.map((n) => n.mentions);
    expect(mentions).toEqual([...mentions].sort((a, b) => b - a));

    const top = all[0];
    expect(top.source_count).toBe(30);
    expect(JSON.parse(top.sources)).toHaveLength(10);
    const sources: number[] = [];
    let document = 0;
    for (;;) {
      const page = store.graph.sourcesOf(ws, top.id, document, 4);
      sources.push(...page.map((r) => r.id));
      if (page.length < 4) break;
      document = page[page.length - 1].document;
    }
    expect(sources.sort((a, b) => a - b)).toEqual(ids.filter((_, s) => s <= Number(top.id.slice(1))));
  });
});
