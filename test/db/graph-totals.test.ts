/**
 * The knowledge graph's per-workspace sums (sql/0013_graph_totals.sql) against the per-document rows they sum: after
 * every kind of change they equal sums recomputed from graph_mentions and graph_pairs, and the reads built on them
 * answer what the former queries, which summed the document rows on every read, answered.
 */
import { describe, expect, it } from "vitest";
import type { ContentRow } from "../../src/db/contents.js";
import { type EntityType, GRAPH_READS, type GraphSource, graphQueries } from "../../src/db/graph.js";
import { knownMigrations, migrate } from "../../src/db/migrate.js";
import type { Db } from "../../src/db/open.js";
import { openDb } from "../../src/db/open.js";
import { iso } from "../../src/domain/clock.js";
import { extractGraph } from "../../src/domain/graph.js";
import { makeHarness, storeReference } from "../helpers/harness.js";

/** The former reads, which summed every document's rows, kept as the oracle. */
const FORMER_SOURCE_KIND = "CASE WHEN d.reference_id IS NULL THEN 'content' ELSE 'reference' END";
const formerNodesOf = (filter: string) => `
  WITH n AS (
    SELECT m.entity AS id,
      CASE WHEN max(m.type = 'proper_noun') = 1 THEN 'proper_noun' ELSE 'key_phrase' END AS type,
      sum(m.mentions) AS mentions,
      json_group_array(json_object('kind', ${FORMER_SOURCE_KIND}, 'id', coalesce(d.reference_id, d.content_id))) AS sources
    FROM graph_mentions AS m JOIN graph_documents AS d ON d.id = m.document_id
    WHERE m.workspace_id = @ws ${filter}
    GROUP BY m.entity
  )
  SELECT n.id, n.type, n.mentions, n.sources,
    (SELECT l.label FROM graph_mentions AS l WHERE l.workspace_id = @ws AND l.entity = n.id
     ORDER BY l.type = 'proper_noun' DESC, l.mentions DESC, l.label LIMIT 1) AS label
  FROM n`;
const FORMER = {
  nodes: `${formerNodesOf("")} WHERE (@type IS NULL OR n.type = @type) ORDER BY n.mentions DESC, n.id LIMIT @limit`,
  nodesByIds: `${formerNodesOf("AND m.entity IN (SELECT value FROM json_each(@ids))")} ORDER BY n.mentions DESC, n.id`,
  search: `SELECT * FROM (${formerNodesOf(
    "AND m.entity IN (SELECT s.entity FROM graph_mentions AS s WHERE s.workspace_id = @ws AND instr(s.search, @q) > 0)",
  )}) AS found
     WHERE (@type IS NULL OR found.type = @type)
     ORDER BY (SELECT min(CASE WHEN instr(s.search, @q) = 1 THEN 0 WHEN instr(s.search, ' ' || @q) > 0 THEN 1 ELSE 2 END)
               FROM graph_mentions AS s WHERE s.workspace_id = @ws AND s.entity = found.id),
       found.mentions DESC, found.id
     LIMIT @limit OFFSET @offset`,
  edges: `SELECT p.source, p.target, sum(p.weight) AS weight FROM graph_pairs AS p
     WHERE p.workspace_id = @ws AND p.source IN (SELECT value FROM json_each(@ids))
       AND p.target IN (SELECT value FROM json_each(@ids))
     GROUP BY p.source, p.target HAVING sum(p.weight) >= @minWeight
     ORDER BY weight DESC, p.source, p.target`,
  related: `SELECT other AS id, sum(weight) AS weight FROM (
       SELECT target AS other, weight FROM graph_pairs WHERE workspace_id = @ws AND source = @id
       UNION ALL
       SELECT source AS other, weight FROM graph_pairs WHERE workspace_id = @ws AND target = @id)
     GROUP BY other ORDER BY weight DESC, other LIMIT @limit`,
};

/** The sums recomputed from the document rows, in the totals' own shape and order. */
const RECOMPUTED = {
  entities: `SELECT workspace_id, entity, sum(mentions) AS mentions, sum(type = 'proper_noun') AS proper_count,
      CASE WHEN max(type = 'proper_noun') = 1 THEN 'proper_noun' ELSE 'key_phrase' END AS type
    FROM graph_mentions GROUP BY workspace_id, entity ORDER BY workspace_id, entity`,
  labels: `SELECT workspace_id, entity, search, count(*) AS rows FROM graph_mentions
    GROUP BY workspace_id, entity, search ORDER BY workspace_id, entity, search`,
  edges: `SELECT workspace_id, source, target, sum(weight) AS weight FROM graph_pairs
    GROUP BY workspace_id, source, target ORDER BY workspace_id, source, target`,
};
const TOTALS = {
  entities: `SELECT workspace_id, entity, mentions, proper_count, type FROM graph_entity_totals
    ORDER BY workspace_id, entity`,
  labels: "SELECT workspace_id, entity, search, rows FROM graph_label_totals ORDER BY workspace_id, entity, search",
  edges: "SELECT workspace_id, source, target, weight FROM graph_edge_totals ORDER BY workspace_id, source, target",
};

/** The totals equal the document rows' sums (so no row at zero is left), and every read answers as it did. */
function expectExact(db: Db, graph: ReturnType<typeof graphQueries> | null, workspaces: string[]) {
  for (const k of ["entities", "labels", "edges"] as const)
    expect(db.prepare(TOTALS[k]).all(), k).toEqual(db.prepare(RECOMPUTED[k]).all());
  if (!graph) return;
  const former = <T>(sql: string, params: Record<string, unknown>) => db.prepare(sql).all(params) as T[];
  for (const ws of workspaces) {
    for (const type of [null, "proper_noun", "key_phrase"] as (EntityType | null)[])
      for (const limit of [1, 3, 100])
        expect(graph.nodes(ws, type, limit), `nodes ${type} ${limit}`).toEqual(
          former(FORMER.nodes, { ws, type, limit }),
        );
    const all = graph.nodes(ws, null, 500);
    const ids = all.map((n) => n.id);
    for (const minWeight of [1, 2, 3])
      expect(graph.edges(ws, ids, minWeight), `edges ${minWeight}`).toEqual(
        former(FORMER.edges, { ws, ids: JSON.stringify(ids), minWeight }),
      );
    const some = [...ids.filter((_, i) => i % 2 === 0), "no-such-entity"];
    expect(graph.edges(ws, some, 1)).toEqual(former(FORMER.edges, { ws, ids: JSON.stringify(some), minWeight: 1 }));
    expect(graph.nodesByIds(ws, some)).toEqual(former(FORMER.nodesByIds, { ws, ids: JSON.stringify(some) }));
    for (const id of ids)
      for (const limit of [1, 5]) {
        const related = former<{ id: string; weight: number }>(FORMER.related, { ws, id, limit });
        expect(graph.related(ws, id, limit), `related ${id}`).toEqual(related);
        // As an entity search gave them: the related entities still in the graph, with their labels and types.
        const others = new Map(
          former<{ id: string; label: string; type: string }>(FORMER.nodesByIds, {
            ws,
            ids: JSON.stringify(related.map((r) => r.id)),
          }).map((o) => [o.id, o]),
        );
        expect(graph.relatedNodes(ws, id, limit), `related nodes ${id}`).toEqual(
          related.flatMap((r) => {
            const o = others.get(r.id);
            return o ? [{ id: o.id, label: o.label, type: o.type, weight: r.weight }] : [];
          }),
        );
      }
    for (const q of ["", "a", "co", "corp", "york", "review", "zzz"])
      for (const type of [null, "proper_noun", "key_phrase"] as (EntityType | null)[])
        for (const [limit, offset] of [
          [3, 0],
          [3, 2],
          [100, 0],
        ])
          expect(graph.search({ workspaceId: ws, q, type, limit, offset }), `search ${q} ${type}`).toEqual(
            former(FORMER.search, { ws, q, type, limit, offset }),
          );
  }
}

const ACME =
  "Acme Corp opened an office in New York. Acme Corp hired Jane Doe to lead the New York office. " +
  "Jane Doe previously ran the weekly planning review at Globex. The weekly planning review kept Globex on track.";
// "Planning Review" a name here, a key phrase in ACME and PLANS; "remote teams" and "remote team" two labels of one
// entity.
const NAMES =
  "Jane Doe met Acme Corp at Planning Review in Boston. Boston hosted Planning Review with Globex and Jane Doe. " +
  "Acme Corp and Globex signed in Boston. Our remote teams met in Boston. Those remote teams agreed.";
const PLANS =
  "Remote teams hold a planning review. A remote team needs the planning review. Remote teams and Acme Corp agree. " +
  "The remote team wrote to Jane Doe.";
// "Acme-Corp": another label of "acme-corp", which "corp" matches inside a word where it matches "Acme Corp" at a word's start.
const HYPHEN = "Jane Doe visited Acme-Corp in Boston. Acme-Corp hired Globex Corporation.";
const GLOBEX = "Globex Corporation moved to Springfield. Globex Corporation hired Homer Simpson in Springfield.";

describe("knowledge graph totals", () => {
  it("equal the sums of the document rows through saves, re-extractions, stale removals and cascades", () => {
    const h = makeHarness();
    const store = h.services.store;
    const db = store.db;
    const now = iso(h.clock.now());
    const { ws1, ws2 } = h.a;
    const check = () => expectExact(db, store.graph, [ws1, ws2, h.b.ws]);
    const save = (ws: string, source: GraphSource, text: string) =>
      store.graph.saveDocument(ws, source, extractGraph({ text, format: "plain" }), now);
    const reference = (ws: string, text: string, account = h.a.id) => {
      const r = storeReference(store, { accountId: account, workspaceId: ws, content: text, now });
      const source: GraphSource = { kind: "reference", id: r.id, version: 0 };
      save(ws, source, text);
      return source;
    };
    const finalized = (ws: string, text: string, version = 1) => {
      const row = store.contents.create({
        accountId: h.a.id,
        workspaceId: ws,
        templateId: null,
        title: "t",
        content: text,
        status: "finalized",
        now,
      });
      const saved = store.contents.save({ ...row, finalized_content: text, version_count: version }, now);
      save(ws, { kind: "content", id: row.id, version }, text);
      return saved;
    };
    const update = (row: ContentRow, change: Partial<ContentRow>) => store.contents.save({ ...row, ...change }, now);

    check();
    const acme = reference(ws1, ACME);
    check();
    const names = reference(ws1, NAMES);
    const plans = reference(ws1, PLANS);
    const hyphen = reference(ws1, HYPHEN);
    reference(ws2, ACME);
    reference(h.b.ws, GLOBEX, h.b.id);
    const c1 = finalized(ws1, GLOBEX);
    const c2 = finalized(ws1, `${NAMES} ${PLANS}`);
    const c3 = finalized(ws2, PLANS);
    check();
    // "planning-review" is a name in two documents (NAMES) and a key phrase in others; "remote-team" has two labels.
    const totals = db.prepare<[string, string], { type: string; proper_count: number }>(
      "SELECT type, proper_count FROM graph_entity_totals WHERE workspace_id = ? AND entity = ?",
    );
    expect(totals.get(ws1, "planning-review")).toEqual({ type: "proper_noun", proper_count: 2 });
    expect(
      db
        .prepare("SELECT count(*) AS n FROM graph_label_totals WHERE workspace_id = ? AND entity = 'remote-team'")
        .get(ws1),
    ).toEqual({ n: 2 });
    expect(
      db
        .prepare(
          "SELECT search FROM graph_label_totals WHERE workspace_id = ? AND entity = 'acme-corp' ORDER BY search",
        )
        .pluck()
        .all(ws1),
    ).toEqual(["acme corp", "acme-corp"]);

    // A new extraction of a source replaces its rows: what it no longer yields leaves the totals.
    save(ws1, names, GLOBEX);
    check();
    expect(totals.get(ws1, "planning-review")).toEqual({ type: "proper_noun", proper_count: 1 });
    save(ws1, { kind: "content", id: c2.id, version: 1 }, PLANS);
    check();
    expect(totals.get(ws1, "planning-review")).toEqual({ type: "key_phrase", proper_count: 0 });
    save(ws1, names, NAMES);
    save(ws1, acme, ACME);
    check();

    // Stale documents of contents: regenerated, moved to another workspace, one at a time and all at once.
    update(c1, { status: "generated", version_count: 2 });
    db.prepare("UPDATE contents SET workspace_id = ? WHERE id = ?").run(ws2, c2.id);
    expect(store.graph.removeStaleOf(ws1, c1.id)).toBe(1);
    check();
    expect(store.graph.removeStale(ws1)).toBe(1);
    check();

    // Deleting a reference or a content cascades to their rows, and the triggers see the cascade.
    store.references.remove(plans.id);
    check();
    store.contents.remove(c3.id);
    check();
    expect(db.prepare("SELECT count(*) AS n FROM graph_edge_totals WHERE workspace_id = ?").get(ws2)).not.toEqual({
      n: 0,
    });
    // A workspace, two cascades away: nothing of it is left.
    store.workspaces.remove(ws2);
    check();
    for (const table of ["graph_entity_totals", "graph_label_totals", "graph_edge_totals"])
      expect(db.prepare(`SELECT count(*) AS n FROM ${table} WHERE workspace_id = ?`).get(ws2), table).toEqual({ n: 0 });

    // Rows changed in place (nothing does that today) move the totals too.
    db.prepare(
      "UPDATE graph_mentions SET mentions = mentions + 2, type = 'key_phrase' WHERE entity = 'jane-doe'",
    ).run();
    db.prepare("UPDATE graph_mentions SET search = 'acme corporation' WHERE entity = 'acme-corp'").run();
    db.prepare("UPDATE graph_pairs SET weight = weight + 1 WHERE source = 'acme-corp'").run();
    check();

    // Everything gone: nothing left in the totals.
    store.references.remove(acme.id);
    store.references.remove(names.id);
    store.references.remove(hyphen.id);
    check();
    expect(store.graph.nodes(ws1, null, 100)).toEqual([]);
    db.prepare("DELETE FROM graph_documents").run();
    for (const table of ["graph_entity_totals", "graph_label_totals", "graph_edge_totals"])
      expect(db.prepare(`SELECT count(*) AS n FROM ${table}`).get(), table).toEqual({ n: 0 });
  });

  it("rank ties by id, and pick the top nodes of one type from that type only", () => {
    const h = makeHarness();
    const store = h.services.store;
    const now = iso(h.clock.now());
    const ws = h.a.ws1;
    // Many entities of equal mentions, and key phrases outnumbered by names.
    const text = Array.from(
      { length: 30 },
      (_, i) =>
        `Zed${String.fromCharCode(97 + (i % 26))}x Corp met Ann${i} Lee near Bo${i} Kay. The shared budget review ran late.`,
    ).join(" ");
    const r = storeReference(store, { accountId: h.a.id, workspaceId: ws, content: text, now });
    store.graph.saveDocument(
      ws,
      { kind: "reference", id: r.id, version: 0 },
      extractGraph({ text, format: "plain" }),
      now,
    );
    expect(store.graph.nodes(ws, "key_phrase", 5).map((n) => n.type)).toEqual(["key_phrase"]);
    expectExact(store.db, store.graph, [ws]);
  });

  it("are computed by the migration from the rows of a database from before it", () => {
    const db = openDb(":memory:");
    const known = knownMigrations();
    migrate(
      db,
      known.filter((m) => m.name < "0013"),
    );
    db.exec(`INSERT INTO accounts (id, name, plan, created_at) VALUES (1, 'a', 'business', 'x');
      INSERT INTO workspaces (id, account_id, name, is_default, created_at)
        VALUES ('ws_1', 1, 'w', 1, 'x'), ('ws_2', 1, 'v', 0, 'x')`);
    const reference = db.prepare(
      `INSERT INTO reference_materials (account_id, workspace_id, title, content, source_type, word_count, created_at)
       VALUES (1, ?, 't', 'x', 'text', 1, 'x')`,
    );
    const document = db.prepare(
      "INSERT INTO graph_documents (workspace_id, reference_id, version, extracted_at) VALUES (?, ?, 0, 'x')",
    );
    const mention = db.prepare(
      "INSERT INTO graph_mentions (document_id, workspace_id, entity, label, search, type, mentions) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    const pair = db.prepare(
      "INSERT INTO graph_pairs (document_id, workspace_id, source, target, weight) VALUES (?, ?, ?, ?, ?)",
    );
    const store = (ws: string, text: string) => {
      const extracted = extractGraph({ text, format: "plain" });
      const id = Number(document.run(ws, Number(reference.run(ws).lastInsertRowid)).lastInsertRowid);
      for (const e of extracted.entities) mention.run(id, ws, e.id, e.label, e.label.toLowerCase(), e.type, e.mentions);
      for (const p of extracted.pairs) pair.run(id, ws, p.source, p.target, p.weight);
    };
    for (const text of [ACME, NAMES, PLANS, GLOBEX]) store("ws_1", text);
    store("ws_2", PLANS);
    store("ws_2", NAMES);

    expect(migrate(db, known)).toContain("0013_graph_totals.sql");
    expect(db.prepare("SELECT count(*) AS n FROM graph_edge_totals").get()).not.toEqual({ n: 0 });
    expectExact(db, graphQueries(db), ["ws_1", "ws_2"]);
    // And kept from then on.
    db.prepare("DELETE FROM reference_materials WHERE id = 1").run();
    expectExact(db, graphQueries(db), ["ws_1", "ws_2"]);
  });

  it("are read through their keys and indexes, and the document rows only for the nodes returned", () => {
    const db = openDb(":memory:");
    migrate(db);
    const params = { ws: "w", type: "proper_noun", limit: 5, offset: 0, ids: "[]", id: "x", q: "a", minWeight: 1 };
    const plan = (sql: string) =>
      db
        .prepare<typeof params, { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all(params)
        .map((r) => r.detail);
    for (const [name, sql] of Object.entries(GRAPH_READS)) {
      const details = plan(sql);
      // The former reads summed graph_pairs, and read graph_mentions by workspace.
      expect(
        details.filter((d) => /^(SCAN|SEARCH) (p|graph_pairs)\b/.test(d)),
        name,
      ).toEqual([]);
      for (const d of details.filter((d) => /^(SCAN|SEARCH) (m|l)\b/.test(d)))
        expect(d, name).toMatch(/^SEARCH [ml] USING INDEX graph_mentions_entity \(workspace_id=\? AND entity=\?\)$/);
      // Only the pages picked and the ids given are scanned whole.
      expect(
        details.filter((d) => d.startsWith("SCAN") && !/^SCAN (top|picked|found|r|json_each)\b/.test(d)),
        name,
      ).toEqual([]);
    }
    expect(plan(GRAPH_READS.nodes)).toContain("SEARCH t USING INDEX graph_entity_totals_rank (workspace_id=?)");
    expect(plan(GRAPH_READS.nodesOfType)).toContain(
      "SEARCH t USING INDEX graph_entity_totals_type_rank (workspace_id=? AND type=?)",
    );
    expect(plan(GRAPH_READS.nodesByIds)).toContain("SEARCH t USING PRIMARY KEY (workspace_id=? AND entity=?)");
    expect(plan(GRAPH_READS.edges)).toContain("SEARCH e USING PRIMARY KEY (workspace_id=? AND source=?)");
    expect(plan(GRAPH_READS.related)).toEqual(
      expect.arrayContaining([
        "SEARCH graph_edge_totals USING PRIMARY KEY (workspace_id=? AND source=?)",
        "SEARCH graph_edge_totals USING INDEX graph_edge_totals_target (workspace_id=? AND target=?)",
      ]),
    );
  });
});
