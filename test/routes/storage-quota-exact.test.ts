/**
 * The storage quota holds under concurrent writes (domain/storage.ts withinStorage): the check that holds runs in
 * the writer's transaction that stores the record, so writes that all passed the request's early check, before any
 * of them was stored, are admitted only as far as the quota has room.
 */
import { describe, expect, it } from "vitest";
import type { StoreWriter, WriteOpName } from "../../src/domain/writer.js";
import { type Harness, makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";
import { png } from "../helpers/images.js";
import { storeChangedRecords, storingWrites } from "../helpers/storing-writes.js";

/**
 * A writer that holds the operations named `op` until `count` of them were asked for, then runs them in order, as
 * the writer thread does with the operations queued behind a long transaction: every request's early check has run
 * before the first of them is stored.
 */
function heldUntil(op: WriteOpName, count: number) {
  return (inline: StoreWriter): StoreWriter => {
    let asked = 0;
    let release = () => {};
    const all = new Promise<void>((resolve) => {
      release = resolve;
    });
    const run = inline.run as (name: string, input: unknown) => Promise<unknown>;
    return {
      run: (async (name: string, input: unknown) => {
        if (name === op) {
          if (++asked === count) release();
          await all;
        }
        return run(name, input);
      }) as StoreWriter["run"],
    };
  };
}

const used = (h: Harness) => h.services.store.storage.used(h.a.id) ?? 0;

const WRITES: [string, WriteOpName, string, unknown][] = [
  ["a content", "draftCreate", "/api/v1/contents", { title: "t", content: "x".repeat(1000) }],
  ["a memory", "memoryCreate", "/api/v1/memories", { kind: "context", title: "m", content: "y".repeat(1000) }],
  [
    "a reference material",
    "referenceCreate",
    "/api/v1/reference-materials",
    { title: "r", content: "Flat roofs take ballast mounts. ".repeat(30), format: "text" },
  ],
  [
    "an image",
    "imageCreate",
    "/api/v1/images",
    { filename: "p.png", data_base64: Buffer.from(png(8, 8)).toString("base64") },
  ],
];

describe("the storage quota under concurrent writes", () => {
  it.each(WRITES)("admits exactly the writes of %s that fit, and refuses the others", async (_what, op, path, body) => {
    // What one such write stores, learnt on an account of its own.
    const lone = makeHarness();
    const probe = await lone.send("POST", path, { auth: lone.key(), body });
    expect(probe.status, JSON.stringify(probe.body)).toBe(201);
    const each = used(lone);
    expect(each).toBeGreaterThan(0);
    const n = 6;
    const fit = 2;
    const h = makeHarness({ writer: heldUntil(op, n) });
    const key = h.key();
    // Room for `fit` of them, not for one more.
    const quota = each * fit + Math.floor(each / 2);
    h.services.store.accounts.setQuotas(h.a.id, null, quota);
    const answers = await Promise.all(Array.from({ length: n }, () => h.send("POST", path, { auth: key, body })));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(fit).fill(201), ...Array(n - fit).fill(507)]);
    for (const refused of answers.filter((a) => a.status === 507))
      expect(expectErrorBody(refused, 507, "storage_quota_exceeded")).toMatchObject({
        quota: "storage_bytes",
        limit_bytes: quota,
      });
    expect(used(h)).toBe(each * fit);
    expect(used(h)).toBeLessThanOrEqual(quota);
    // The counter is what the rows hold.
    expect(h.services.store.storage.recount(h.a.id)).toBe(each * fit);
  });
});

describe("the storage quota in the writer's transaction", () => {
  it("refuses every route that stores a record when the account filled up after the request's own check", async () => {
    // Fills the account (its quota lowered to what it holds) just before each operation stores anything, as writes
    // queued ahead of it would: every request's early check passed, the writer's transaction is the one that refuses.
    let fill = () => {};
    const h = makeHarness({
      writer: (inline) => {
        const run = inline.run as (name: string, input: unknown) => Promise<unknown>;
        return {
          run: (async (name: string, input: unknown) => {
            fill();
            return run(name, input);
          }) as StoreWriter["run"],
        };
      },
    });
    const key = h.key();
    const ids = await storeChangedRecords(h, key);
    const full = used(h);
    fill = () => h.services.store.accounts.setQuotas(h.a.id, null, used(h));
    const writes = storingWrites(ids);
    for (const [method, path, body] of writes) {
      h.services.store.accounts.setQuotas(h.a.id, null, null);
      const res = await h.send(method, path, { auth: key, body });
      expect(expectErrorBody(res, 507, "storage_quota_exceeded"), `${method} ${path}`).toMatchObject({
        limit_bytes: full,
        used_bytes: full,
      });
      expect(used(h), `${method} ${path}`).toBe(full);
    }
    // A write that frees bytes passes in the writer's transaction however full the account is.
    h.services.store.accounts.setQuotas(h.a.id, null, null);
    const shorter = await h.send("PATCH", `/api/v1/contents/${ids.draftId}`, {
      auth: key,
      body: { content: "d" },
    });
    expect(shorter.status).toBe(200);
    expect(used(h)).toBe(full - 4);
  });
});
