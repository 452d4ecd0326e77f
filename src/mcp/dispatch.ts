/**
 * How MCP tool calls reach this API's operations: through the same request pipeline as any HTTP request, so the
 * caller's key meets the same authentication, rate limits, plan, scope, workspace binding and validation. The route
 * table is the caller's to give (routes/mcp.ts): this module never imports it, as the table holds the MCP route.
 */
import { createApp, type RequestEnv } from "../http/app.js";
import type { Services } from "../http/context.js";
import type { RouteDef } from "../http/route.js";

/** Answers one request through the pipeline (an App's `handle`). */
export type Dispatch = (request: Request, env?: RequestEnv) => Promise<Response>;

const dispatchers = new WeakMap<Services, WeakMap<readonly RouteDef[], Dispatch>>();

/** The pipeline tool calls over these services and this route table go through: an app over them, built once. */
export function dispatcherFor(services: Services, routes: RouteDef[]): Dispatch {
  let byRoutes = dispatchers.get(services);
  if (!byRoutes) {
    byRoutes = new WeakMap();
    dispatchers.set(services, byRoutes);
  }
  let dispatch = byRoutes.get(routes);
  if (!dispatch) {
    dispatch = createApp(services, routes).handle;
    byRoutes.set(routes, dispatch);
  }
  return dispatch;
}
