/**
 * Every list filter is served by an index (sql/0022_list_filters.sql): the query plan of each list statement, built
 * by the code the list runs, searches an index on the filter's columns and scans no table, so that a filtered page
 * costs the page (or, for a planned-day range, its matches), not the workspace.
 */
import { describe, expect, it } from "vitest";
import { type ContentFilter, type ContentStatus, listIndex, listSql, RANGE_WALK } from "../../src/db/contents.js";
import { CONVERSION_LIST_SQL } from "../../src/db/conversions.js";
import { IMAGE_PAGE_SQL } from "../../src/db/images.js";
import { MEMORY_LIST_SQL } from "../../src/db/memories.js";
import { migrate } from "../../src/db/migrate.js";
import { type Db, openDb } from "../../src/db/open.js";
import { REFERENCE_LIST_SQL } from "../../src/db/references.js";
import { createStore } from "../../src/db/store.js";
import { templateListSql } from "../../src/db/templates.js";
import { WORKSPACE_PAGE_SQL } from "../../src/db/workspaces.js";

const STATUSES: ContentStatus[] = ["draft", "generated", "finalized", "published"];
const TODAY = "2030-06-15";

/** Every combination of the contents list's filters (the status's value does not change the statement). */
function contentShapes(): ContentFilter[] {
  const shapes: ContentFilter[] = [];
  for (const status of [undefined, "draft"] as const)
    for (const plannedFrom of [undefined, "2030-06-01"])
      for (const plannedTo of [undefined, "2030-06-30"])
        for (const overdue of [{}, { overdueBefore: TODAY }, { notOverdueOn: TODAY }])
          shapes.push({ workspaceId: "w", status, plannedFrom, plannedTo, ...overdue, afterId: 0, limit: 21 });
  return shapes;
}

/** A filter as the request names it, for a test's message. */
const named = (f: ContentFilter) =>
  JSON.stringify({
    status: f.status,
    planned_from: f.plannedFrom,
    planned_to: f.plannedTo,
    overdue: f.overdueBefore ? "true" : f.notOverdueOn ? "false" : undefined,
  });

function migrated(): Db {
  const db = openDb(":memory:");
  migrate(db);
  return db;
}

/** The plan's lines of a statement, bound with `params` (EXPLAIN needs every parameter bound). */
function plan(db: Db, sql: string, params: unknown): string[] {
  const stmt = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  const rows = (Array.isArray(params) ? stmt.all(...params) : stmt.all(params)) as { detail: string }[];
  return rows.map((r) => r.detail);
}

/** The lines that scan a table (a SCAN of a subquery's rows, bounded by its LIMIT, is not one). */
const tableScans = (lines: string[], tables: string[]) =>
  lines.filter((l) => tables.some((t) => new RegExp(`^SCAN ${t}\\b`).test(l)));

describe("list query plans", () => {
  it("take every contents filter's page ids from a covering index searched on that filter", () => {
    const db = migrated();
    const partial = new Map(
      (
        db.prepare("SELECT name, partial FROM pragma_index_list('contents')").all() as {
          name: string;
          partial: number;
        }[]
      ).map((r) => [r.name, r.partial === 1]),
    );
    /** The plan of a statement of ids, its one search of contents, and that search's constraint. */
    const searched = (sql: string, f: ContentFilter) => {
      const lines = plan(db, sql, { ...f, status: f.status ?? null });
      const why = `${named(f)}:\n${sql}\n${lines.join("\n")}`;
      expect(tableScans(lines, ["contents"]), why).toEqual([]);
      // The ids come from the index alone: no filter reads a row (its status and day lie past its texts).
      const search = lines.filter((l) => l.startsWith("SEARCH contents "));
      expect(search, why).toEqual([
        expect.stringMatching(/^SEARCH contents USING COVERING INDEX \w+ \(workspace_id=\?/),
      ]);
      return { lines, why, index: search[0]!.split(" ")[5]!, constraint: search[0]!.replace(/^[^(]*/, "") };
    };
    for (const f of contentShapes()) {
      const sql = listSql(db, f);
      const exact = searched(sql.exact, f);
      const { why, constraint } = exact;
      expect(exact.index, why).toBe(listIndex(f));
      const ranged = f.plannedFrom || f.plannedTo || f.overdueBefore;
      // A range's matches are found by day, the status tested on their index entries; the walk searches it.
      if (f.status && !ranged) expect(constraint, why).toMatch(/status=\?/);
      if (ranged) {
        // A day range is searched in the index; its matches' ids are then sorted: a cost of the matches.
        expect(constraint, why).toMatch(/scheduled_publish_day[<>]/);
        // Tried first: RANGE_WALK entries in id order, which serve a range that matches densely.
        const walk = searched(sql.walk!, f);
        expect(walk.constraint, walk.why).toMatch(f.status ? /status=\? AND id>\?\)$/ : /id>\?\)$/);
        expect(sql.walk, walk.why).toContain(`LIMIT ${RANGE_WALK})`);
      } else {
        // Served in id order from the cursor on: the page's cost, nothing sorted.
        expect(constraint, why).toMatch(/id>\?\)$/);
        expect(exact.lines.join("\n"), why).not.toMatch(/TEMP B-TREE/);
        expect(sql.walk, why).toBeUndefined();
      }
      // Overdue reads only the planned contents that are not published, not every past-planned one.
      if (f.overdueBefore) expect(partial.get(listIndex(f)), why).toBe(true);
    }
  });

  it("search the other lists' filters in an index, in the list's order", () => {
    const db = migrated();
    const page = { workspaceId: "w", afterId: 0, limit: 21 };
    const cases: { sql: string; params: unknown; table: string; search: RegExp; sorted?: boolean }[] = [
      { sql: MEMORY_LIST_SQL.all, params: page, table: "memories", search: /\(workspace_id=\? AND id>\?\)$/ },
      {
        sql: MEMORY_LIST_SQL.ofKind,
        params: { ...page, kind: "voice" },
        table: "memories",
        search: /\(workspace_id=\? AND kind=\? AND id>\?\)$/,
      },
      { sql: CONVERSION_LIST_SQL.all, params: page, table: "conversions", search: /\(workspace_id=\? AND id>\?\)$/ },
      {
        sql: CONVERSION_LIST_SQL.ofContent,
        params: { ...page, contentId: 1 },
        table: "conversions",
        search: /\(content_id=\? AND id>\?\)$/,
      },
      {
        sql: REFERENCE_LIST_SQL,
        params: page,
        table: "r",
        search: /\(workspace_id=\? AND rowid>\?\)$|\(workspace_id=\? AND id>\?\)$/,
      },
      { sql: IMAGE_PAGE_SQL.all, params: [1, 99, 21], table: "images", search: /\(account_id=\? AND id<\?\)$/ },
      {
        sql: IMAGE_PAGE_SQL.ofSource,
        params: [1, 99, "upload", 21],
        table: "images",
        search: /\(account_id=\? AND source=\? AND id<\?\)$/,
      },
      { sql: WORKSPACE_PAGE_SQL, params: [1, "", 21], table: "workspaces", search: /\(account_id=\? AND id>\?\)$/ },
      // The built-ins and the account's own templates, each half from templates_account, merged and sorted: the
      // filters are tested on those rows only.
      {
        sql: templateListSql(db),
        params: { accountId: 1, category: "blog", q: "x", afterId: 0, limit: 21 },
        table: "templates",
        search: /USING INDEX templates_account \(account_id=\? AND id>\?\)$/,
        sorted: true,
      },
    ];
    for (const c of cases) {
      const lines = plan(db, c.sql, c.params);
      const why = `${c.sql}:\n${lines.join("\n")}`;
      expect(tableScans(lines, [c.table]), why).toEqual([]);
      const searches = lines.filter((l) => l.startsWith(`SEARCH ${c.table} `));
      expect(searches.length, why).toBeGreaterThan(0);
      for (const s of searches) expect(s, why).toMatch(c.search);
      if (!c.sorted) expect(lines.join("\n"), why).not.toMatch(/TEMP B-TREE/);
    }
  });
});

describe("the contents list", () => {
  it("finds, for every combination of filters, the contents a row-by-row filter finds, page after page", () => {
    const db = migrated();
    const store = createStore(db);
    const now = "2030-06-15T08:00:00.000Z";
    const account = store.accounts.create("A", "business", now);
    const workspaces = ["w1", "w2"].map((name) => store.workspaces.create(account.id, name, false, now).id);
    const days = [null, "2030-05-31", "2030-06-01", "2030-06-14", "2030-06-15", "2030-06-30", "2030-07-01"];
    let n = 0;
    for (const day of days)
      for (const status of STATUSES)
        for (const workspaceId of [workspaces[0]!, workspaces[0]!, workspaces[1]!]) {
          const text = `text ${n++}`;
          const row = store.contents.create({
            accountId: account.id,
            workspaceId,
            templateId: null,
            title: "t",
            content: text,
            status: status === "published" ? "finalized" : status,
            now,
          });
          if (day) store.contents.schedule(row.id, day, day, now);
          if (status === "published") store.contents.publish(row.id, now);
        }
    const all = db.prepare("SELECT * FROM contents ORDER BY id").all() as {
      id: number;
      workspace_id: string;
      status: ContentStatus;
      scheduled_publish_day: string | null;
    }[];
    const ws = workspaces[0]!;
    for (const base of contentShapes())
      for (const status of base.status ? STATUSES : [undefined]) {
        const f = { ...base, workspaceId: ws, status };
        const day = (r: (typeof all)[number]) => r.scheduled_publish_day;
        const expected = all
          .filter((r) => r.workspace_id === ws && (!f.status || r.status === f.status))
          .filter((r) => !f.plannedFrom || (day(r) !== null && day(r)! >= f.plannedFrom))
          .filter((r) => !f.plannedTo || (day(r) !== null && day(r)! <= f.plannedTo))
          .filter((r) => !f.overdueBefore || (day(r) !== null && day(r)! < TODAY && r.status !== "published"))
          .filter((r) => !f.notOverdueOn || day(r) === null || day(r)! >= TODAY || r.status === "published")
          .map((r) => r.id);
        const found: number[] = [];
        for (let afterId = 0; ; ) {
          const page = [...store.contents.list({ ...f, afterId, limit: 4 })].map((r) => r.id);
          found.push(...page);
          if (page.length < 4) break;
          afterId = page.at(-1)!;
        }
        expect(found, named(f)).toEqual(expected);
      }
  });

  it("finds a day range's matches past the walk in id order, and on pages the walk fills", () => {
    const db = migrated();
    const store = createStore(db);
    const now = "2030-06-15T08:00:00.000Z";
    const account = store.accounts.create("A", "business", now);
    const ws = store.workspaces.create(account.id, "w", false, now).id;
    const add = (day: string | null) => {
      const row = store.contents.create({
        accountId: account.id,
        workspaceId: ws,
        templateId: null,
        title: "t",
        content: "x",
        status: "draft",
        now,
      });
      if (day) store.contents.schedule(row.id, day, day, now);
      return row.id;
    };
    // Dense matches first (pages the walk fills), then more unplanned contents than the walk takes, then a few.
    const matches: number[] = [];
    db.transaction(() => {
      for (let i = 0; i < 30; i++) matches.push(add("2030-06-10"));
      for (let i = 0; i < RANGE_WALK + 200; i++) add(i % 2 ? null : "2030-07-01");
      for (let i = 0; i < 5; i++) matches.push(add("2030-06-10"));
    })();
    for (const range of [{ plannedFrom: "2030-06-01", plannedTo: "2030-06-12" }, { overdueBefore: TODAY }]) {
      const found: number[] = [];
      for (let afterId = 0; ; ) {
        const page = [...store.contents.list({ workspaceId: ws, ...range, afterId, limit: 4 })].map((r) => r.id);
        found.push(...page);
        if (page.length < 4) break;
        afterId = page.at(-1)!;
      }
      expect(found, JSON.stringify(range)).toEqual(matches);
    }
  });
});
