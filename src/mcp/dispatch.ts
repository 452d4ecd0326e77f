/**
 * How MCP tool calls reach this API's operations: through the same request pipeline as any HTTP request, so the
 * caller's key meets the same authentication, rate limits, plan, scope, workspace binding and validation.
 */
import { createApp, type RequestEnv } from "../http/app.js";
import type { Services } from "../http/context.js";

/** Answers one request through the pipeline (an App's `handle`). */
export type Dispatch = (request: Request, env?: RequestEnv) => Promise<Response>;

const dispatchers = new WeakMap<Services, Dispatch>();

/** Makes tool calls over these services go through `dispatch` (for an app built over another route table). */
export function setDispatcher(services: Services, dispatch: Dispatch): void {
  dispatchers.set(services, dispatch);
}

/**
 * The pipeline tool calls over these services go through: the one set for them, else the standard app over the
 * same services (built once, on first use: the route table is imported lazily because it holds the MCP route).
 */
export async function dispatcherFor(services: Services): Promise<Dispatch> {
  const known = dispatchers.get(services);
  if (known) return known;
  const { ROUTES } = await import("../routes/index.js");
  const dispatch = dispatchers.get(services) ?? createApp(services, ROUTES).handle;
  dispatchers.set(services, dispatch);
  return dispatch;
}
