/** The operation stage (src/http/pipeline/operation.ts): the handler's answer, replayed and made durable. */
import { describe, expect, it } from "vitest";
import { authenticateCaller } from "../../../src/http/pipeline/authenticate.js";
import { validateInput } from "../../../src/http/pipeline/input.js";
import { runOperation } from "../../../src/http/pipeline/operation.js";
import { limitRate } from "../../../src/http/pipeline/rate-limit.js";
import type { RouteDef } from "../../../src/http/route.js";
import { makeHarness } from "../../helpers/harness.js";
import { LOOSE_BODY, routedOf, type StageRequest, testRoute } from "../../helpers/pipeline.js";

async function ready(h: ReturnType<typeof makeHarness>, route: RouteDef, opts: StageRequest = {}) {
  const state = routedOf(route, "/api/v1/__stage", opts);
  await authenticateCaller(h.services)(state);
  limitRate(h.services)(state);
  state.body = opts.body;
  validateInput(h.services)(state);
  return state;
}

describe("runOperation", () => {
  it("answers the handler's reply with X-RateLimit-*, X-Trace-Id and X-API-Stability on a beta route", async () => {
    const h = makeHarness();
    const state = await ready(h, testRoute(), { auth: h.key() });
    const response = await runOperation(h.services)(state);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body as string)).toEqual({ ok: true });
    expect(response.headers).toMatchObject({
      "x-trace-id": state.traceId,
      "x-api-stability": "beta",
      "x-ratelimit-remaining": "99",
    });
  });

  it("keeps an answer carrying a secret out of every cache, and marks each JSON answer nosniff", async () => {
    const h = makeHarness();
    const plain = await runOperation(h.services)(await ready(h, testRoute(), { auth: h.key() }));
    expect(plain.headers["x-content-type-options"]).toBe("nosniff");
    expect(plain.headers["cache-control"]).toBeUndefined();
    for (const secret of [testRoute({ secret: true }), testRoute({ shownOnce: ["key"] })]) {
      const response = await runOperation(h.services)(await ready(h, secret, { auth: h.key() }));
      expect(response.headers["cache-control"]).toBe("no-store");
    }
  });

  it("names a created record in Location, under the public address's path", async () => {
    const h = makeHarness({ config: { publicUrl: "https://host.example/content" } });
    const route = testRoute({
      method: "POST",
      stability: "stable",
      created: (body: { id: number }) => `/api/v1/things/${body.id}`,
      handler: () => ({ status: 201, body: { id: 7 } }),
    });
    const response = await runOperation(h.services)(await ready(h, route, { auth: h.key() }));
    expect(response.headers.location).toBe("/content/api/v1/things/7");
    expect(response.headers["x-api-stability"]).toBeUndefined();
  });

  it("replays the first answer to a POST with the same Idempotency-Key and body, running the handler once", async () => {
    const h = makeHarness();
    let runs = 0;
    const route = testRoute({
      method: "POST",
      body: LOOSE_BODY,
      handler: () => ({ status: 201, body: { run: ++runs } }),
    });
    const key = h.key();
    const opts = { auth: key, body: { a: 1 }, headers: { "idempotency-key": "k-1" } };
    const first = await runOperation(h.services)(await ready(h, route, opts));
    const second = await runOperation(h.services)(await ready(h, route, opts));
    expect(runs).toBe(1);
    const text = (body: unknown) => (typeof body === "string" ? body : new TextDecoder().decode(body as Uint8Array));
    expect(second.status).toBe(201);
    expect(JSON.parse(text(second.body))).toEqual(JSON.parse(text(first.body)));
  });

  it("answers a write once the durability wait is over, and a read without it", async () => {
    const h = makeHarness();
    let syncs = 0;
    const sync = h.services.durability.sync.bind(h.services.durability);
    h.services.durability.sync = () => {
      syncs++;
      return sync();
    };
    await runOperation(h.services)(await ready(h, testRoute(), { auth: h.key() }));
    expect(syncs).toBe(0);
    await runOperation(h.services)(await ready(h, testRoute({ method: "DELETE" }), { auth: h.key() }));
    expect(syncs).toBe(1);
  });
});
