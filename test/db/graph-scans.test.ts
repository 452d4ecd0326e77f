import { describe, expect, it } from "vitest";
import type { ContentRow, ContentStatus } from "../../src/db/contents.js";
import { type GraphSource, graphScans } from "../../src/db/graph.js";
import { iso } from "../../src/domain/clock.js";
import { makeHarness, storeReference } from "../helpers/harness.js";

/** The stale query before sql/0009_graph_scans.sql, kept to check that its rewrite finds the same documents. */
const FORMER_STALE = `SELECT d.id FROM graph_documents AS d LEFT JOIN contents AS c ON c.id = d.content_id
  WHERE d.workspace_id = @ws AND d.content_id IS NOT NULL
    AND (c.id IS NULL OR c.workspace_id <> d.workspace_id OR c.status NOT IN ('finalized', 'published')
         OR c.version_count <> d.version)`;

const NOTHING = { entities: [], pairs: [] };

function setup() {
  const h = makeHarness();
  const store = h.services.store;
  const db = h.db;
  const now = iso(h.clock.now());
  const content = (workspaceId: string, status: ContentStatus, version: number) => {
    const row = store.contents.create({
      accountId: h.a.id,
      workspaceId,
      templateId: null,
      title: "t",
      content: "x",
      status,
      now,
    });
    return store.contents.save({ ...row, version_count: version }, now);
  };
  /** Stores an (empty) extraction of a content at `version`, by default its own. */
  const extract = (row: ContentRow, version = row.version_count) =>
    store.graph.saveDocument(row.workspace_id, { kind: "content", id: row.id, version }, NOTHING, now);
  const documentOf = (contentId: number) =>
    db.prepare<[number], number>("SELECT id FROM graph_documents WHERE content_id = ?").pluck().get(contentId);
  const ids = (sql: string, ws: string) =>
    db
      .prepare<{ ws: string }, number>(sql)
      .pluck()
      .all({ ws })
      .sort((a, b) => a - b);
  return { h, store, db, now, content, extract, documentOf, ids };
}

describe("knowledge graph scans", () => {
  it("find exactly the stale documents the former LEFT JOIN found", () => {
    const { h, store, db, now, content, extract, documentOf, ids } = setup();
    const ws1 = h.a.ws1;
    const ws2 = h.a.ws2;
    const update = (row: ContentRow, change: Partial<ContentRow>) => store.contents.save({ ...row, ...change }, now);

    // Each extracted while finalized at version 1, then changed.
    const rows = {
      kept: content(ws1, "finalized", 1),
      published: content(ws1, "finalized", 1),
      toDraft: content(ws1, "finalized", 1),
      regenerated: content(ws1, "finalized", 1),
      reversioned: content(ws1, "finalized", 1),
      movedOut: content(ws1, "finalized", 1),
      orphaned: content(ws1, "finalized", 1),
      deleted: content(ws1, "finalized", 1),
      ahead: content(ws1, "finalized", 1),
      movedIn: content(ws2, "finalized", 1),
      other: content(ws2, "published", 1),
    };
    for (const row of Object.values(rows)) extract(row);
    const reference = storeReference(store, { accountId: h.a.id, workspaceId: ws1, content: "x", now });
    store.graph.saveDocument(ws1, { kind: "reference", id: reference.id, version: 0 }, NOTHING, now);

    store.contents.publish(rows.published.id, now);
    update(rows.toDraft, { status: "draft" });
    update(rows.regenerated, { status: "generated", version_count: 2 });
    update(rows.reversioned, { version_count: 2 });
    db.prepare("UPDATE contents SET workspace_id = ? WHERE id = ?").run(ws2, rows.movedOut.id);
    db.prepare("UPDATE contents SET workspace_id = ? WHERE id = ?").run(ws1, rows.movedIn.id);
    extract(rows.ahead, 3);
    // A document whose content is gone: the cascade normally takes it, so only without foreign keys.
    db.pragma("foreign_keys = OFF");
    store.contents.remove(rows.orphaned.id);
    db.pragma("foreign_keys = ON");
    store.contents.remove(rows.deleted.id);
    expect(documentOf(rows.deleted.id)).toBeUndefined();

    const expected = {
      [ws1]: ["toDraft", "regenerated", "reversioned", "movedOut", "orphaned", "ahead"] as const,
      [ws2]: ["movedIn"] as const,
    };
    for (const [ws, stale] of Object.entries(expected)) {
      const want = stale.map((k) => documentOf(rows[k].id)!).sort((a, b) => a - b);
      expect(ids(graphScans(db).stale, ws)).toEqual(want);
      expect(ids(FORMER_STALE, ws)).toEqual(want);
      expect(store.graph.staleCount(ws)).toBe(want.length);
    }
    expect(ids(graphScans(db).stale, h.b.ws)).toEqual([]);

    // One content at a time: only its stale document goes, and only from the workspace asked about.
    const fresh = documentOf(rows.kept.id);
    expect(store.graph.removeStaleOf(ws1, rows.kept.id)).toBe(0);
    expect(store.graph.removeStaleOf(ws2, rows.movedOut.id)).toBe(0);
    expect(store.graph.removeStaleOf(ws1, rows.movedOut.id)).toBe(1);
    expect(documentOf(rows.kept.id)).toBe(fresh);
    expect(store.graph.removeStale(ws1)).toBe(expected[ws1].length - 1);
    expect(store.graph.removeStale(ws2)).toBe(1);
    expect(ids(FORMER_STALE, ws1)).toEqual([]);
    const left = db.prepare("SELECT content_id, reference_id FROM graph_documents ORDER BY id").all();
    expect(left).toEqual([
      { content_id: rows.kept.id, reference_id: null },
      { content_id: rows.published.id, reference_id: null },
      { content_id: rows.other.id, reference_id: null },
      { content_id: null, reference_id: reference.id },
    ]);
  });

  it("list pending sources by kind, then id", () => {
    const { h, store, now, content, extract } = setup();
    const reference = () => storeReference(store, { accountId: h.a.id, workspaceId: h.a.ws1, content: "x", now }).id;
    const r1 = reference();
    const c1 = content(h.a.ws1, "published", 2);
    const r2 = reference();
    const c2 = content(h.a.ws1, "finalized", 1);
    const done = content(h.a.ws1, "finalized", 1);
    extract(done);
    content(h.a.ws1, "draft", 1);
    content(h.a.ws2, "finalized", 1);
    const expected: GraphSource[] = [
      { kind: "content", id: c1.id, version: 2 },
      { kind: "content", id: c2.id, version: 1 },
      { kind: "reference", id: r1, version: 0 },
      { kind: "reference", id: r2, version: 0 },
    ];
    expect(store.graph.pendingSources(h.a.ws1)).toEqual(expected);
    expect(expected.map(store.graph.isExtracted)).toEqual([false, false, false, false]);
    expect(store.graph.isExtracted({ kind: "content", id: done.id, version: 1 })).toBe(true);
    expect(store.graph.isExtracted({ kind: "content", id: done.id, version: 2 })).toBe(false);
  });

  it("read no table row of contents and sort nothing in a temp B-tree", () => {
    const { h, db } = setup();
    const plan = (sql: string) =>
      db
        .prepare<{ ws: string }, { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all({ ws: h.a.ws1 })
        .map((r) => r.detail);
    const ofContents = (details: string[]) => details.filter((d) => /^(SCAN|SEARCH) c\b/.test(d));

    const pending = plan(graphScans(db).pending);
    expect(ofContents(pending)).toEqual(["SEARCH c USING COVERING INDEX contents_graph (workspace_id=? AND status=?)"]);
    expect(pending.join("\n")).not.toMatch(/TEMP B-TREE/);
    // The stale check seeks one index entry per document.
    const stale = plan(graphScans(db).stale);
    expect(ofContents(stale)).toEqual([
      "SEARCH c USING COVERING INDEX contents_graph (workspace_id=? AND status=? AND version_count=? AND rowid=?)",
    ]);
    expect(stale.join("\n")).not.toMatch(/TEMP B-TREE/);
  });
});
