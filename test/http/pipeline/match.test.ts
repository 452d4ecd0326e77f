/** The route stage (src/http/pipeline/match.ts): the route of a method and path, and the 404 or 405 of none. */
import { describe, expect, it } from "vitest";
import { matchRoute, requireRoute } from "../../../src/http/pipeline/match.js";
import { refusalOf, stateOf, testRoute } from "../../helpers/pipeline.js";

const ROUTES = [
  testRoute({ method: "GET", path: "/api/v1/things/{id}" }),
  testRoute({ method: "POST", path: "/api/v1/things/new", stability: "stable" }),
];

describe("matchRoute", () => {
  it("settles the route, its path parameters and its stability", async () => {
    const state = stateOf("GET", "/api/v1/things/7");
    await matchRoute(ROUTES)(state);
    expect(state.route).toBe(ROUTES[0]);
    expect(state.match).toMatchObject({ kind: "route", params: { id: "7" } });
    expect(state.beta).toBe(true);
  });

  it("answers a path seen before synchronously", async () => {
    const stage = matchRoute(ROUTES);
    await stage(stateOf("GET", "/api/v1/things/7"));
    expect(stage(stateOf("GET", "/api/v1/things/7"))).toBeUndefined();
  });

  it("gives a path a route names word for word to that route alone: GET of it is a wrong method", async () => {
    const state = stateOf("GET", "/api/v1/things/new");
    await matchRoute(ROUTES)(state);
    expect(state.match).toEqual({ kind: "method", allowed: ["POST"], beta: false });
    expect(state.route).toBeUndefined();
  });
});

describe("requireRoute", () => {
  it("is 405 method_not_allowed with Allow for a path other methods answer", async () => {
    const state = stateOf("DELETE", "/api/v1/things/7");
    await matchRoute(ROUTES)(state);
    const refusal = await refusalOf(() => requireRoute(state));
    expect(refusal).toMatchObject({ status: 405, code: "method_not_allowed", details: { allowed: ["GET", "HEAD"] } });
    expect(refusal.headers).toEqual({ allow: "GET, HEAD" });
    expect(state.beta).toBe(true);
  });

  it("is 404 route_not_found for a path no route has", async () => {
    const state = stateOf("GET", "/api/v1/nothing");
    await matchRoute(ROUTES)(state);
    expect(await refusalOf(() => requireRoute(state))).toMatchObject({ status: 404, code: "route_not_found" });
  });

  it("passes a matched request through", async () => {
    const state = stateOf("GET", "/api/v1/things/7");
    await matchRoute(ROUTES)(state);
    expect(requireRoute(state)).toBe(state);
  });
});
