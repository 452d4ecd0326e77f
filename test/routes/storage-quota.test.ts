/**
 * The storage quota (domain/storage.ts, issue 31 L5): the bytes an account's records hold, reported by the
 * entitlements, checked before a write that would pass the quota (507 storage_quota_exceeded), given back when
 * records are deleted.
 */
import { describe, expect, it } from "vitest";
import { type Harness, makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";
import { storeChangedRecords, storingWrites } from "../helpers/storing-writes.js";

function setQuota(h: Harness, bytes: number | null) {
  h.services.store.accounts.setQuotas(h.a.id, null, bytes);
}

async function storage(h: Harness, auth: string) {
  return (await h.send("GET", "/api/v1/users/me/entitlements", { auth })).body.storage;
}

describe("storage quota", () => {
  it("reports the plan's quota and the bytes used in the entitlements", async () => {
    const h = makeHarness();
    const key = h.key();
    expect(await storage(h, key)).toEqual({ limit_bytes: 10 * 1024 ** 3, used_bytes: 0 });
    const made = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "Tï", content: "abc" } });
    expect(made.status).toBe(201);
    // UTF-8 bytes: "Tï" is 3, "abc" 3.
    expect((await storage(h, key)).used_bytes).toBe(6);
    setQuota(h, 5000);
    expect(await storage(h, key)).toEqual({ limit_bytes: 5000, used_bytes: 6 });
  });

  it("refuses a write that would pass the quota with 507 naming it, and takes writes again once records go", async () => {
    const h = makeHarness();
    const key = h.key();
    setQuota(h, 3000);
    const first = await h.send("POST", "/api/v1/contents", {
      auth: key,
      body: { title: "a", content: "x".repeat(2000) },
    });
    expect(first.status).toBe(201);
    const refused = await h.send("POST", "/api/v1/contents", {
      auth: key,
      body: { title: "b", content: "y".repeat(1500) },
    });
    const details = expectErrorBody(refused, 507, "storage_quota_exceeded");
    expect(details).toMatchObject({
      quota: "storage_bytes",
      limit_bytes: 3000,
      used_bytes: 2001,
      requested_bytes: 1501,
    });
    expect((await h.send("GET", "/api/v1/contents", { auth: key })).body.data).toHaveLength(1);
    expect((await h.send("DELETE", `/api/v1/contents/${first.body.content_id}`, { auth: key })).status).toBe(200);
    expect((await storage(h, key)).used_bytes).toBe(0);
    const again = await h.send("POST", "/api/v1/contents", {
      auth: key,
      body: { title: "b", content: "y".repeat(1500) },
    });
    expect(again.status).toBe(201);
  });

  it("reuses the conversion of an unchanged text, counts a changed one, and gives bytes back with the content", async () => {
    const h = makeHarness();
    const key = h.key();
    const text = "A paragraph of **text** for the converter. ".repeat(200);
    const content = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "c", content: text } });
    const id = content.body.content_id;
    const convert = () =>
      h.send("POST", "/api/v1/conversions", { auth: key, body: { content_id: id, target_format: "html" } });
    const base = (await storage(h, key)).used_bytes;
    const one = await convert();
    expect(one.status).toBe(201);
    const perConversion = (await storage(h, key)).used_bytes - base;
    expect(perConversion).toBe(Buffer.byteLength(one.body.output));
    // The same text to the same format, five times: one stored conversion, answered again.
    for (let i = 0; i < 5; i++) {
      const again = await convert();
      expect(again.status).toBe(201);
      expect(again.body.id).toBe(one.body.id);
    }
    expect((await storage(h, key)).used_bytes).toBe(base + perConversion);
    expect((await h.send("GET", "/api/v1/conversions", { auth: key })).body.data).toHaveLength(1);
    // A changed text is another conversion, and counts: past the quota, 507.
    const edited = await h.send("PATCH", `/api/v1/contents/${id}`, { auth: key, body: { content: `${text} More.` } });
    expect(edited.status).toBe(200);
    const used = (await storage(h, key)).used_bytes;
    setQuota(h, used + perConversion - 10);
    expectErrorBody(await convert(), 507, "storage_quota_exceeded");
    setQuota(h, null);
    const two = await convert();
    expect(two.status).toBe(201);
    expect(two.body.id).not.toBe(one.body.id);
    expect((await h.send("DELETE", `/api/v1/contents/${id}`, { auth: key })).status).toBe(200);
    expect((await storage(h, key)).used_bytes).toBe(0);
  });

  it("counts a reference with its passages and a memory, and checks each before storing it", async () => {
    const h = makeHarness();
    const key = h.key();
    const text = "Solar panels on flat roofs need ballast. ".repeat(50);
    const ref = await h.send("POST", "/api/v1/reference-materials", {
      auth: key,
      body: { title: "r", content: text, format: "text" },
    });
    expect(ref.status).toBe(201);
    const afterRef = (await storage(h, key)).used_bytes;
    expect(afterRef).toBeGreaterThan(Buffer.byteLength(text));
    const memory = { kind: "context", title: "m", content: "z".repeat(100) };
    expect((await h.send("POST", "/api/v1/memories", { auth: key, body: memory })).status).toBe(201);
    expect((await storage(h, key)).used_bytes).toBe(afterRef + 101);
    setQuota(h, afterRef + 150);
    expectErrorBody(
      await h.send("POST", "/api/v1/memories", { auth: key, body: memory }),
      507,
      "storage_quota_exceeded",
    );
    expectErrorBody(
      await h.send("POST", "/api/v1/reference-materials", {
        auth: key,
        body: { title: "r2", content: text, format: "text" },
      }),
      507,
      "storage_quota_exceeded",
    );
    expect((await h.send("DELETE", `/api/v1/reference-materials/${ref.body.id}`, { auth: key })).status).toBe(200);
    expect((await storage(h, key)).used_bytes).toBe(101);
  });

  it("keeps the quota of one account to it: another account writes on", async () => {
    const h = makeHarness();
    setQuota(h, 10);
    expectErrorBody(
      await h.send("POST", "/api/v1/contents", { auth: h.key(), body: { title: "a", content: "x".repeat(20) } }),
      507,
      "storage_quota_exceeded",
    );
    const other = await h.send("POST", "/api/v1/contents", {
      auth: h.key({ account: h.b.id }),
      body: { title: "a", content: "x".repeat(20) },
    });
    expect(other.status).toBe(201);
  });

  it("refuses every route that stores a record once the account is full, and stores nothing", async () => {
    const h = makeHarness();
    const key = h.key();
    const ids = await storeChangedRecords(h, key);
    const used = (await storage(h, key)).used_bytes;
    setQuota(h, used);
    const writes = storingWrites(ids);
    for (const [method, path, body] of writes) {
      const res = await h.send(method, path, { auth: key, body });
      expectErrorBody(res, 507, "storage_quota_exceeded");
      expect(res.body.details, `${method} ${path}`).toMatchObject({ limit_bytes: used, used_bytes: used });
    }
    expect((await storage(h, key)).used_bytes).toBe(used);
  });
});
