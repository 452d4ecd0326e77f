/**
 * A list's page is cut short when its JSON could pass MAX_PAGE_CHARS (routes/common.ts page): it then says
 * has_more, and its cursor goes on after the last record given, so every record is still reached.
 */
import { describe, expect, it } from "vitest";
import { jsonSizeBound, MAX_PAGE_CHARS, page } from "../../src/routes/common.js";
import { makeHarness } from "../helpers/harness.js";

describe("page size", () => {
  it("bounds a value's JSON from above, for any characters", () => {
    for (const value of [
      "plain",
      '\u0001\u0002"\\\n',
      ["a", 1, null, { b: "\u0000" }],
      { text: "x".repeat(1_000), n: 1.5e300, ok: true },
    ])
      expect(jsonSizeBound(value)).toBeGreaterThanOrEqual(JSON.stringify(value).length);
  });

  it("gives fewer rows than asked when they would pass the limit, at least one, and a cursor after the last", () => {
    const rows = [1, 2, 3, 4].map((id) => ({ id, text: "x".repeat(100) }));
    const cursorOf = (r: { id: number }) => `c${r.id}`;
    const same = <T>(r: T) => r;
    expect(page(rows, 10, cursorOf, same, Math.floor(jsonSizeBound(rows[0]) * 2.5))).toEqual({
      data: rows.slice(0, 2),
      has_more: true,
      next_cursor: "c2",
    });
    expect(page(rows, 10, cursorOf, same, 10).data).toHaveLength(1);
    expect(page(rows, 3, cursorOf, same)).toEqual({ data: rows.slice(0, 3), has_more: true, next_cursor: "c3" });
    expect(page(rows, 4, cursorOf, same)).toEqual({ data: rows, has_more: false, next_cursor: null });
  });

  it("reads its rows no further than the page needs: one past a page that ends by size or by limit", () => {
    let pulled = 0;
    let ended = false;
    function* rows() {
      try {
        for (let id = 1; id <= 100; id++) {
          pulled++;
          yield { id, text: "x".repeat(100) };
        }
      } finally {
        ended = true;
      }
    }
    const cursorOf = (r: { id: number }) => `c${r.id}`;
    const bySize = page(
      rows(),
      100,
      cursorOf,
      (r) => r,
      Math.floor(jsonSizeBound({ id: 1, text: "x".repeat(100) }) * 2.5),
    );
    expect(bySize).toMatchObject({ has_more: true, next_cursor: "c2" });
    expect([pulled, ended]).toEqual([3, true]);
    pulled = 0;
    expect(page(rows(), 5, cursorOf)).toMatchObject({ has_more: true, next_cursor: "c5" });
    expect(pulled).toBe(6);
  });

  it("reads one text past a page of GET /reference-materials that ends by size, not every row asked for", async () => {
    const h = makeHarness();
    const key = h.key();
    const text = "word ".repeat(100_000);
    for (let i = 0; i < 40; i++)
      h.services.store.references.create({
        accountId: h.a.id,
        workspaceId: h.a.ws1,
        title: `r${i}`,
        content: text,
        sourceType: "text",
        wordCount: 100_000,
        passages: [],
        now: "2026-01-15T00:00:00.000Z",
      });
    const list = h.services.store.references.list;
    let read = 0;
    // Counts the rows taken from the statement's own iterator (an array, as list.all() gave, has no next()).
    h.services.store.references.list = (q) => {
      const rows = list(q);
      return (function* () {
        try {
          for (let r = rows.next(); !r.done; r = rows.next()) {
            read++;
            yield r.value;
          }
        } finally {
          rows.return?.();
        }
      })();
    };
    const res = await h.send("GET", "/api/v1/reference-materials?limit=100", {
      auth: key,
      headers: { "x-workspace-id": h.a.ws1 },
    });
    expect(res.status).toBe(200);
    const shown = Math.floor(MAX_PAGE_CHARS / (6 * 500_000 + 1_000));
    expect(res.body.data).toHaveLength(shown);
    expect(res.body.has_more).toBe(true);
    expect(read).toBe(shown + 1);
  });

  it("pages GET /contents by size: 50 stored texts of 500,000 control characters come in several pages", async () => {
    const h = makeHarness();
    const key = h.key();
    // Stored as they are (a request body holds fewer: each is 6 bytes of JSON), as a conversion's output can be.
    const text = "\u0001".repeat(500_000);
    const ids: number[] = [];
    for (let i = 0; i < 50; i++)
      ids.push(
        h.services.store.contents.create({
          accountId: h.a.id,
          workspaceId: h.a.ws1,
          templateId: null,
          title: `c${i}`,
          content: text,
          status: "draft",
          now: "2026-01-15T00:00:00.000Z",
        }).id,
      );
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await h.send("GET", `/api/v1/contents?limit=100${cursor ? `&cursor=${cursor}` : ""}`, { auth: key });
      expect(res.status).toBe(200);
      expect(res.body.data.length * (6 * 500_000)).toBeLessThanOrEqual(MAX_PAGE_CHARS);
      seen.push(...res.body.data.map((c: { content_id: number }) => c.content_id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    // Each text may take 3,000,000 characters of JSON (each one escaped as 6): 11 of them fit in 32 MiB.
    expect(pages).toBe(Math.ceil(50 / Math.floor(MAX_PAGE_CHARS / (6 * 500_000 + 1_000))));
    expect(seen).toEqual(ids);
  });
});
