/** The authenticate stage (src/http/pipeline/authenticate.ts): the caller, or the reason its credentials fail. */
import { describe, expect, it } from "vitest";
import {
  authenticateCaller,
  refuseUnauthenticated,
  SESSION_ONLY_MESSAGE,
} from "../../../src/http/pipeline/authenticate.js";
import { makeHarness } from "../../helpers/harness.js";
import { refusalOf, routedOf, stateOf, testRoute } from "../../helpers/pipeline.js";

describe("authenticateCaller", () => {
  it("settles an API key's principal synchronously", () => {
    const h = makeHarness();
    const state = routedOf(testRoute(), "/api/v1/__stage", { auth: h.key() });
    expect(authenticateCaller(h.services)(state)).toBeUndefined();
    expect(state.principal).toMatchObject({ kind: "key", accountId: h.a.id });
    expect(() => refuseUnauthenticated(state)).not.toThrow();
  });

  it("settles a web session's principal", async () => {
    const h = makeHarness();
    const state = routedOf(testRoute(), "/api/v1/__stage", { auth: await h.login("admin@a.test") });
    await authenticateCaller(h.services)(state);
    expect(state.principal).toMatchObject({ kind: "session", accountId: h.a.id });
  });

  it("keeps missing credentials' reason for refuseUnauthenticated's 401", async () => {
    const h = makeHarness();
    const state = routedOf(testRoute(), "/api/v1/__stage");
    await authenticateCaller(h.services)(state);
    expect(state.principal).toBeNull();
    const refusal = await refusalOf(() => refuseUnauthenticated(state));
    expect(refusal).toMatchObject({ status: 401, code: "unauthorized" });
  });

  it("notes no failure for a request to no route (it is answered 404 or 405)", async () => {
    const h = makeHarness();
    const state = stateOf("GET", "/api/v1/nothing", { auth: "svc_live_wrong" });
    await authenticateCaller(h.services)(state);
    expect(state.authFailure).toBeUndefined();
  });

  it("ignores credentials on public routes, but notes an API key on one that refuses them", async () => {
    const h = makeHarness();
    const open = routedOf(testRoute({ access: "public" }), "/api/v1/__stage", { auth: h.key() });
    await authenticateCaller(h.services)(open);
    expect(open.principal).toBeNull();
    expect(open.authFailure).toBeUndefined();
    const login = routedOf(testRoute({ access: "public", rejectsApiKeys: true }), "/x", { auth: h.key() });
    await authenticateCaller(h.services)(login);
    expect(login.authFailure).toBe(SESSION_ONLY_MESSAGE);
  });

  it("reads no credentials on internal routes", async () => {
    const h = makeHarness();
    const state = routedOf(testRoute({ stability: "outside" }), "/healthz", { auth: "svc_live_wrong" });
    await authenticateCaller(h.services)(state);
    expect(state.principal).toBeNull();
    expect(state.authFailure).toBeUndefined();
  });
});
