/** GET /contents and GET /contents/{id}/versions page in the database: each page reads its own rows only, oldest first. */
import { describe, expect, it, vi } from "vitest";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

describe("GET /api/v1/contents/{id}/versions", () => {
  it("pages versions by cursor, oldest first, and refuses a cursor it did not issue", async () => {
    const h = makeHarness();
    const key = h.key();
    const first = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "Planning reviews, take 1" },
    });
    const id = first.body.content_id as number;
    for (let i = 2; i <= 5; i++) {
      const again = await h.send("POST", "/api/v1/generate", {
        auth: key,
        body: { template_id: 1, user_direction: `Planning reviews, take ${i}`, content_id: id },
      });
      expect(again.status).toBe(200);
    }
    const seen: number[][] = [];
    let cursor: string | null = null;
    do {
      const res = await h.send("GET", `/api/v1/contents/${id}/versions?limit=2${cursor ? `&cursor=${cursor}` : ""}`, {
        auth: key,
      });
      expect(res.status).toBe(200);
      seen.push(res.body.data.map((v: { version: number }) => v.version));
      cursor = res.body.next_cursor;
      expect(res.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual([[1, 2], [3, 4], [5]]);

    // The cursor names the last version given (8 digits, base64url JSON, as before).
    const after3 = Buffer.from(JSON.stringify("00000003")).toString("base64url");
    const rest = await h.send("GET", `/api/v1/contents/${id}/versions?cursor=${after3}`, { auth: key });
    expect(rest.body.data.map((v: { version: number }) => v.version)).toEqual([4, 5]);
    const bad = Buffer.from(JSON.stringify("v3")).toString("base64url");
    expectErrorBody(
      await h.send("GET", `/api/v1/contents/${id}/versions?cursor=${bad}`, { auth: key }),
      400,
      "validation_failed",
    );
  });
});

describe("GET /api/v1/contents", () => {
  it("reads a page's ids in one query, its rows as the page takes them, and pages on by cursor", async () => {
    const h = makeHarness();
    const key = h.key();
    for (let i = 1; i <= 5; i++)
      expect(
        (await h.send("POST", "/api/v1/contents", { auth: key, body: { title: `Draft ${i}`, content: "Text." } }))
          .status,
      ).toBe(201);
    // One query a page, whatever its size: a planned-day range's costs its matches once, not once a row.
    const list = vi.spyOn(h.services.store.contents, "list");
    const first = await h.send("GET", "/api/v1/contents?limit=3&status=draft", { auth: key });
    expect(list).toHaveBeenCalledTimes(1);
    expect(first.body.data.map((c: { title: string }) => c.title)).toEqual(["Draft 1", "Draft 2", "Draft 3"]);
    expect(first.body.has_more).toBe(true);
    const rest = await h.send("GET", `/api/v1/contents?limit=3&status=draft&cursor=${first.body.next_cursor}`, {
      auth: key,
    });
    expect(list).toHaveBeenCalledTimes(2);
    expect(rest.body.data.map((c: { title: string }) => c.title)).toEqual(["Draft 4", "Draft 5"]);
    expect(rest.body).toMatchObject({ has_more: false, next_cursor: null });
  });
});
