/** The input stages (src/http/pipeline/input.ts): the body read and parsed, then validated into the context. */
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { receiveBody, validateInput } from "../../../src/http/pipeline/input.js";
import { makeHarness } from "../../helpers/harness.js";
import { refusalOf, routedOf, testRoute } from "../../helpers/pipeline.js";

const BODY = v.object({ title: v.string() });

describe("receiveBody", () => {
  it("finishes at once for a read without a body", () => {
    const h = makeHarness();
    const state = routedOf(testRoute(), "/api/v1/__stage");
    expect(receiveBody(h.services)(state)).toBeUndefined();
    expect(state.hasBody).toBe(false);
  });

  it("reads and parses a write's JSON body, after the write's turn", async () => {
    const h = makeHarness();
    const state = routedOf(testRoute({ method: "POST", body: BODY }), "/api/v1/__stage", { body: { title: "t" } });
    await receiveBody(h.services)(state);
    expect(state.hasBody).toBe(true);
    expect(state.body).toEqual({ title: "t" });
  });

  it("is 400 invalid_json for a body that does not parse", async () => {
    const h = makeHarness();
    const state = routedOf(testRoute({ method: "POST", body: BODY }), "/api/v1/__stage", {
      headers: { "content-type": "application/json" },
    });
    Object.defineProperty(state.request, "bytes", { value: async () => new TextEncoder().encode("{") });
    expect(await refusalOf(() => receiveBody(h.services)(state))).toMatchObject({ status: 400, code: "invalid_json" });
  });
});

describe("validateInput", () => {
  it("builds the handler's context from the validated body", () => {
    const h = makeHarness();
    const state = routedOf(testRoute({ method: "POST", body: BODY }), "/api/v1/__stage");
    state.body = { title: "t" };
    validateInput(h.services)(state);
    expect(state.ctx?.body).toEqual({ title: "t" });
    expect(state.ctx?.traceId).toBe(state.traceId);
  });

  it("is 400 validation_failed naming the field that fails its schema", async () => {
    const h = makeHarness();
    const state = routedOf(testRoute({ method: "POST", body: BODY }), "/api/v1/__stage");
    state.body = { title: 7 };
    const refusal = await refusalOf(() => validateInput(h.services)(state));
    expect(refusal).toMatchObject({ status: 400, code: "validation_failed" });
    expect((refusal.details.issues as { path: string }[])[0].path).toBe("body.title");
  });
});
