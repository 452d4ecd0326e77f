/**
 * A write that finds the disk full answers 507 storage_full (it had been 500 internal_error), stores nothing of
 * itself, and writes work again once there is room, without a restart. The disk is "full" here through SQLite's
 * max_page_count, which fails a write past it with SQLITE_FULL as a full disk does.
 */
import { describe, expect, it } from "vitest";
import { toApiError } from "../../src/http/errors.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

describe("a full disk", () => {
  it("maps SQLITE_FULL to storage_full; a failed fsync's ENOSPC, which needs a restart, stays a 500", () => {
    expect(toApiError(Object.assign(new Error("full"), { code: "SQLITE_FULL" })).code).toBe("storage_full");
    for (const code of ["ENOSPC", "SQLITE_CORRUPT"])
      expect(toApiError(Object.assign(new Error("x"), { code })).code).toBe("internal_error");
  });

  it("answers a write 507 storage_full, keeps nothing of it, and takes writes again once there is room", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    const db = h.services.store.db;
    const pages = db.pragma("page_count", { simple: true }) as number;
    db.pragma(`max_page_count = ${pages}`);
    const count = () => (db.prepare("SELECT count(*) AS n FROM contents").get() as { n: number }).n;
    const before = count();
    const res = await h.send("POST", "/api/v1/contents", {
      auth: key,
      body: { title: "No room", content: "x".repeat(200_000) },
    });
    expectErrorBody(res, 507, "storage_full");
    expect(res.body.message).toMatch(/disk is full/);
    expect(count()).toBe(before);
    db.pragma("max_page_count = 1073741823");
    const again = await h.send("POST", "/api/v1/contents", {
      auth: key,
      body: { title: "Room", content: "x".repeat(200_000) },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
  });
});
