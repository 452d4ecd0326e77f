/**
 * The answers kept for Idempotency-Key replays count against the account's storage quota (sql/0021's triggers,
 * domain/writer.ts idempotencySave): from their store until the purge deletes them, and one that does not fit is
 * kept without its body, so that a duplicate learns the operation ran (409 idempotency_response_not_kept) and the
 * account stays within its quota.
 */
import { describe, expect, it } from "vitest";
import { IDEMPOTENCY_TTL_MS } from "../../src/http/idempotency.js";
import { type Harness, makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

const used = (h: Harness) => h.services.store.storage.used(h.a.id) ?? 0;

/** The bytes of the answers kept for the account, as stored. */
const keptBytes = (h: Harness) =>
  (
    h.db
      .prepare("SELECT coalesce(sum(length(body)), 0) AS n FROM idempotency_keys WHERE account_id = ?")
      .get(h.a.id) as {
      n: number;
    }
  ).n;

const draft = { title: "t", content: "x".repeat(500) };
/** What the draft's record holds: its title and text. */
const DRAFT_BYTES = 501;

function postDraft(h: Harness, auth: string, key: string) {
  return h.send("POST", "/api/v1/contents", { auth, body: draft, headers: { "idempotency-key": key } });
}

describe("answers kept for Idempotency-Key replays", () => {
  it("count against the account's storage until they are purged, and a recount agrees", async () => {
    const h = makeHarness();
    const key = h.key();
    const first = await postDraft(h, key, "k1");
    expect(first.status).toBe(201);
    const kept = keptBytes(h);
    expect(kept).toBeGreaterThan(DRAFT_BYTES);
    expect(used(h)).toBe(DRAFT_BYTES + kept);
    expect((await h.send("GET", "/api/v1/users/me/entitlements", { auth: key })).body.storage.used_bytes).toBe(
      DRAFT_BYTES + kept,
    );
    expect(h.services.store.storage.recount(h.a.id)).toBe(DRAFT_BYTES + kept);
    // The record deleted, its replay is still kept (and counted) for its 24 hours.
    expect((await h.send("DELETE", `/api/v1/contents/${first.body.content_id}`, { auth: key })).status).toBe(200);
    expect(used(h)).toBe(kept);
    h.clock.advance(IDEMPOTENCY_TTL_MS + 1);
    expect(await h.services.idempotency.purgeExpired()).toBe(1);
    expect(used(h)).toBe(0);
    expect(h.services.store.storage.recount(h.a.id)).toBe(0);
  });

  it("count a replaced answer once: an expired one not purged yet, stored over under its key", async () => {
    const h = makeHarness();
    const key = h.key();
    expect((await postDraft(h, key, "k1")).status).toBe(201);
    h.clock.advance(IDEMPOTENCY_TTL_MS + 1);
    // Expired, so the operation runs again; its answer takes the old row's place.
    const again = await postDraft(h, key, "k1");
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(h.db.prepare("SELECT count(*) AS n FROM idempotency_keys").get()).toEqual({ n: 1 });
    expect(used(h)).toBe(2 * DRAFT_BYTES + keptBytes(h));
    expect(h.services.store.storage.recount(h.a.id)).toBe(used(h));
  });

  it("are kept without their body past the quota: the operation ran once and a duplicate gets 409", async () => {
    const h = makeHarness();
    const key = h.key();
    expect((await postDraft(h, key, "probe")).status).toBe(201);
    const answerBytes = keptBytes(h);
    // Room for a second record, not for its answer as well.
    const quota = used(h) + DRAFT_BYTES + Math.floor(answerBytes / 2);
    h.services.store.accounts.setQuotas(h.a.id, null, quota);
    const first = await postDraft(h, key, "k2");
    expect(first.status).toBe(201);
    expect(used(h)).toBe(quota - Math.floor(answerBytes / 2));
    const duplicate = await postDraft(h, key, "k2");
    expect(expectErrorBody(duplicate, 409, "idempotency_response_not_kept")).toMatchObject({ original_status: 201 });
    expect((await h.send("GET", "/api/v1/contents", { auth: key })).body.data).toHaveLength(2);
    expect(used(h)).toBeLessThanOrEqual(quota);
    expect(h.services.store.storage.recount(h.a.id)).toBe(used(h));
  });
});
