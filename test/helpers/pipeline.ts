/** Requests in the state the pipeline's stages see them (src/http/pipeline/state.ts), for tests of one stage. */
import * as v from "valibot";
import type { Ctx } from "../../src/http/context.js";
import { incomingOf } from "../../src/http/exchange.js";
import { openRequest, type RequestEnv, type RequestState, type RoutedState } from "../../src/http/pipeline/state.js";
import type { RouteDef } from "../../src/http/route.js";

/** A test-only route: beta, open to any caller, answering `{ ok: true }`; `over` sets its other fields. */
export function testRoute(over: Partial<RouteDef> = {}): RouteDef {
  return {
    method: "GET",
    path: "/api/v1/__stage",
    operationId: "stageProbe",
    summary: "stage probe",
    tag: "Probe",
    stability: "beta",
    access: "any",
    responses: {},
    handler: (_ctx: Ctx) => ({ body: { ok: true } }),
    ...over,
  };
}

/** A JSON body schema that takes any object with an optional workspace_id. */
export const LOOSE_BODY = v.optional(v.looseObject({ workspace_id: v.optional(v.string()) }));

/** Options of one request built for a stage. */
export interface StageRequest {
  auth?: string;
  body?: unknown;
  headers?: Record<string, string>;
  env?: RequestEnv;
}

/** A request as it comes in (openRequest), before any stage ran. */
export function stateOf(method: string, path: string, opts: StageRequest = {}): RequestState {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.auth !== undefined) headers.authorization = `Bearer ${opts.auth}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const request = new Request(`http://test.local${path}`, { method, headers, body });
  return openRequest(incomingOf(request), opts.env ?? { remoteAddress: "127.0.0.1" });
}

/** A request whose route matched `route` (the state requireRoute hands to the route's own stages). */
export function routedOf(route: RouteDef, path: string, opts: StageRequest & { method?: string } = {}): RoutedState {
  const state = stateOf(opts.method ?? route.method, path, opts);
  state.match = { kind: "route", def: route, params: {} };
  state.route = route;
  state.beta = route.stability === "beta";
  return state as RoutedState;
}

/** Runs `fn` and returns the ApiError-like value it threw (the test fails when it throws nothing). */
export async function refusalOf(
  fn: () => unknown,
): Promise<{ code: string; status: number; details: Record<string, unknown>; headers: Record<string, string> }> {
  try {
    await fn();
  } catch (err) {
    return err as { code: string; status: number; details: Record<string, unknown>; headers: Record<string, string> };
  }
  throw new Error("the stage refused nothing");
}
