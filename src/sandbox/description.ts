/**
 * GET /_sandbox/openapi.json: the sandbox's operations described as the API's are (their valibot schemas, by the
 * same generator: http/openapi.ts), apart from the API's description, which never lists them. Present only in
 * sandbox mode, with the rest of /_sandbox/. Held by test/sandbox/description.test.ts.
 */
import type { ServerConfig } from "../http/context.js";
import { type FixedBody, fixedBody, replyFixed } from "../http/fixed-body.js";
import { buildOpenApi } from "../http/openapi.js";
import { type RouteDef, route } from "../http/route.js";

const SUMMARY =
  "The operations of a server in sandbox mode (serve --sandbox, docs/sandbox.md), outside the API under /_sandbox/: " +
  "fault rules, the request journal and this description. They need no credentials.";

/** The description's route; `routes` are the sandbox's operations, this one among them. */
export function descriptionRoute(routes: () => RouteDef[]): RouteDef {
  let built: { key: string; body: FixedBody } | undefined;
  const body = (config: ServerConfig) => {
    // Built once per server, as the API's is (its URLs are the configuration's, set before the first request).
    const key = `${config.publicUrl} ${config.stagingUrl}`;
    if (built?.key !== key) {
      const document = buildOpenApi(routes(), config, { outside: { summary: SUMMARY } });
      built = { key, body: fixedBody(Buffer.from(JSON.stringify(document))) };
    }
    return built.body;
  };
  return route({
    method: "GET",
    path: "/_sandbox/openapi.json",
    operationId: "sandboxGetOpenApi",
    summary: "The sandbox's operations' OpenAPI 3.1 description (sandbox mode)",
    tag: "Sandbox",
    stability: "outside",
    access: "public",
    responses: { 200: { description: "The OpenAPI document of the /_sandbox/ operations." } },
    handler: (ctx) => replyFixed(ctx.request, body(ctx.services.config), "application/json; charset=utf-8"),
  });
}
