/**
 * What keeping the knowledge graph's totals and queue (sql/0023_graph_totals.sql) costs the writer, and what it saves
 * the reads: two databases grown alike in one run, one with the triggers, one with them dropped (the writes before
 * sql/0023); the rate of saving a source's extraction and of finalizing a content in each, and the overview read
 * from the totals against the former aggregation over every mention and pair. BENCH_GRAPH_SOURCES (default 20,000).
 */
import { performance } from "node:perf_hooks";
import { migrate } from "../src/db/migrate.js";
import { openDb } from "../src/db/open.js";
import { createStore } from "../src/db/store.js";
import { extractGraph } from "../src/domain/graph-extract.js";

const SOURCES = Number(process.env.BENCH_GRAPH_SOURCES ?? 20_000);
const NOW = "2026-12-03T00:00:00.000Z";
const TRIGGERS = [
  "graph_mentions_added",
  "graph_mentions_removed",
  "graph_pairs_added",
  "graph_pairs_removed",
  "graph_queue_added",
  "graph_queue_removed",
  "graph_queue_reference_added",
  "graph_queue_reference_removed",
  "graph_queue_content_added",
  "graph_queue_content_changed",
  "graph_queue_content_removed",
];

const NAMES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne", "Tyrell", "Cyberdyne"];
const PLACES = ["New York", "Paris", "Lagos", "Osaka", "Lima", "Oslo", "Cairo", "Perth", "Quito", "Hanoi"];
/** A varied text: names, places and numbered phrases drawn so that entities grow with the sources. */
function text(i: number): string {
  const r = (n: number, k: number) => (i * 7919 + k * 104729) % n;
  const sentences = [];
  for (let k = 0; k < 8; k++) {
    const name = `${NAMES[r(10, k)]} ${NAMES[r(10, k + 3)]}${r(500, k)}`;
    const place = PLACES[r(10, k + 1)];
    sentences.push(`${name} opened the ${place} office for the quarterly review plan ${r(2000, k)}.`);
    sentences.push(`The quarterly review plan ${r(2000, k)} kept ${name} near ${place} on track.`);
  }
  return sentences.join(" ");
}

const WS = "ws_bench";

function grown(withTotals: boolean) {
  const db = openDb(":memory:");
  migrate(db);
  if (!withTotals) for (const t of TRIGGERS) db.exec(`DROP TRIGGER ${t}`);
  db.prepare("INSERT INTO accounts (id, name, plan, created_at) VALUES (1, 'a', 'agency', ?)").run(NOW);
  db.prepare("INSERT INTO workspaces (id, account_id, name, is_default, created_at) VALUES (?, 1, 'w', 1, ?)").run(
    WS,
    NOW,
  );
  return { db, store: createStore(db), withTotals };
}
type Setup = ReturnType<typeof grown>;

/** Sources per second of `f` over `n` calls. */
function rate(n: number, f: (i: number) => void): number {
  const start = performance.now();
  for (let i = 0; i < n; i++) f(i);
  return n / ((performance.now() - start) / 1000);
}

/** The median of `runs` timings of `f`, in ms. */
function median(runs: number, f: () => unknown): number {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    f();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

/** The former overview: every mention summed per entity, every pair per edge (db/graph.ts before sql/0023). */
const FORMER_NODES = `SELECT m.entity, sum(m.mentions) AS mentions, json_group_array(m.document_id) AS sources
  FROM graph_mentions AS m WHERE m.workspace_id = ? GROUP BY m.entity ORDER BY mentions DESC, m.entity LIMIT 100`;
const FORMER_EDGES = `SELECT p.source, p.target, sum(p.weight) AS weight FROM graph_pairs AS p
  WHERE p.workspace_id = ? AND p.source IN (SELECT value FROM json_each(?)) AND p.target IN (SELECT value FROM json_each(?))
  GROUP BY p.source, p.target ORDER BY weight DESC`;

const extractions = Array.from({ length: 500 }, (_, i) => extractGraph({ text: text(i), format: "plain" }));

/** Grows `s` by `n` references taken in, interleaved with the other setup so that load falls on both alike. */
function grow(s: Setup, from: number, n: number): number {
  return rate(n, (i) => {
    const id = s.store.references.create({
      accountId: 1,
      workspaceId: WS,
      title: "t",
      content: "x",
      sourceType: "text",
      wordCount: 1,
      passages: [],
      now: NOW,
    }).id;
    s.store.graph.saveDocument(WS, { kind: "reference", id, version: 0 }, extractions[(from + i) % 500], NOW);
  });
}

/** Finalizes `n` new contents (a status and version change, the queue's trigger) and takes each in. */
function finalize(s: Setup, n: number): number {
  const rows = Array.from({ length: n }, () =>
    s.store.contents.create({
      accountId: 1,
      workspaceId: WS,
      templateId: null,
      title: "t",
      content: "x",
      status: "generated",
      now: NOW,
    }),
  );
  return rate(n, (i) => {
    s.store.contents.save({ ...rows[i], status: "finalized", version_count: 1 }, NOW);
    s.store.graph.saveDocument(WS, { kind: "content", id: rows[i].id, version: 1 }, extractions[i % 500], NOW);
  });
}

function main() {
  const [kept, former] = [grown(true), grown(false)];
  const e = extractions[0];
  console.log(`${e.entities.length} entities and ${e.pairs.length} pairs a source; ${SOURCES} sources`);
  const rates = { kept: [] as number[], former: [] as number[] };
  const STEP = 1000;
  for (let from = 0; from < SOURCES; from += STEP) {
    rates.kept.push(grow(kept, from, STEP));
    rates.former.push(grow(former, from, STEP));
  }
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const save = { kept: mid(rates.kept), former: mid(rates.former) };
  console.log(
    `save a source's extraction: ${save.kept.toFixed(0)}/s with totals, ${save.former.toFixed(0)}/s without ` +
      `(ratio ${(save.kept / save.former).toFixed(2)})`,
  );
  const fin = { kept: [] as number[], former: [] as number[] };
  for (let r = 0; r < 5; r++) {
    fin.kept.push(finalize(kept, 400));
    fin.former.push(finalize(former, 400));
  }
  console.log(
    `finalize and take in a content: ${mid(fin.kept).toFixed(0)}/s with totals, ${mid(fin.former).toFixed(0)}/s ` +
      `without (ratio ${(mid(fin.kept) / mid(fin.former)).toFixed(2)})`,
  );
  const count = (s: Setup, t: string) => s.db.prepare(`SELECT count(*) FROM ${t}`).pluck().get();
  console.log(
    `rows: ${count(kept, "graph_mentions")} mentions, ${count(kept, "graph_pairs")} pairs, ` +
      `${count(kept, "graph_nodes")} nodes, ${count(kept, "graph_edges")} edges`,
  );
  const overview = () => {
    const nodes = kept.store.graph.nodes(WS, null, 101);
    // As GET /knowledge-graph reads them: its default edge_limit (500) and one more, for has_more_edges.
    kept.store.graph.edges(
      WS,
      nodes.map((n) => n.id),
      1,
      501,
    );
  };
  const formerOverview = () => {
    const nodes = former.db.prepare(FORMER_NODES).all(WS) as { entity: string }[];
    const ids = JSON.stringify(nodes.map((n) => n.entity));
    former.db.prepare(FORMER_EDGES).all(WS, ids, ids);
  };
  console.log(
    `overview (100 nodes and their edges): ${median(9, overview).toFixed(2)} ms from the totals, ` +
      `${median(3, formerOverview).toFixed(1)} ms summed (the former read)`,
  );
  console.log(
    `behind: ${median(99, () => kept.store.graph.pendingCount(WS)).toFixed(3)} ms from graph_pending, ` +
      `${median(5, () => kept.store.graph.pendingSources(WS).length + kept.store.graph.staleCount(WS)).toFixed(2)} ms scanned`,
  );
  const search = () => kept.store.graph.search({ workspaceId: WS, q: "a", type: null, limit: 21, after: null });
  const formerSearch = () =>
    former.db
      .prepare(
        `SELECT m.entity, sum(m.mentions) AS mentions FROM graph_mentions AS m WHERE m.workspace_id = ?
         AND m.entity IN (SELECT s.entity FROM graph_mentions AS s WHERE s.workspace_id = ? AND instr(s.search, 'a') > 0)
         GROUP BY m.entity ORDER BY mentions DESC LIMIT 21`,
      )
      .all(WS, WS);
  console.log(
    `entities?q=a (21): ${median(9, search).toFixed(2)} ms over the nodes, ${median(3, formerSearch).toFixed(1)} ms ` +
      "over the mentions (the former read, without its per-entity rank)",
  );
  const top = kept.store.graph.nodes(WS, null, 1)[0];
  console.log(
    `a page of 20 sources of the top node (${top.source_count} sources): ` +
      `${median(99, () => kept.store.graph.sourcesOf(WS, top.id, 0, 21)).toFixed(3)} ms`,
  );
}
main();
