/**
 * The one place that registers every route file: the route table, which the server (server/), the MCP tools and
 * the OpenAPI document are built from. http/ never imports it: the server hands it to the app.
 */

import { buildOpenApi } from "../http/openapi.js";
import type { RouteDef } from "../http/route.js";
import { accountRoutes } from "./account.js";
import { adminRoutes } from "./admin.js";
import { apiKeyRoutes } from "./apikeys.js";
import { authRoutes } from "./auth.js";
import { billingRoutes } from "./billing.js";
import { contentRoutes } from "./contents.js";
import { conversionRoutes } from "./conversions.js";
import { dashboardRoutes } from "./dashboard.js";
import { deviceAuthRoutes } from "./device-auth.js";
import { docsRoutes } from "./docs.js";
import { generateRoutes } from "./generate.js";
import { graphRoutes } from "./graph.js";
import { imageRoutes } from "./images.js";
import { learningRoutes } from "./learning.js";
import { libraryRoutes } from "./library.js";
import { mcpRoutes } from "./mcp.js";
import { metricsRoutes } from "./metrics.js";
import { modelRoutes } from "./models.js";
import { scoringRoutes } from "./scoring.js";
import { openApiProvider, systemRoutes } from "./system.js";
import { usageRoutes } from "./usage.js";
import { workspaceRoutes } from "./workspaces.js";

/** Every route of the server, in registration order. */
export const ROUTES: RouteDef[] = [
  ...systemRoutes,
  ...metricsRoutes,
  ...docsRoutes,
  ...dashboardRoutes,
  ...authRoutes,
  ...deviceAuthRoutes,
  ...apiKeyRoutes,
  ...workspaceRoutes,
  ...libraryRoutes,
  ...imageRoutes,
  ...generateRoutes,
  ...modelRoutes,
  ...contentRoutes,
  ...learningRoutes,
  ...conversionRoutes,
  ...scoringRoutes,
  ...graphRoutes,
  ...mcpRoutes(() => ROUTES),
  ...accountRoutes,
  ...usageRoutes,
  ...billingRoutes,
  ...adminRoutes,
];

/** The OpenAPI documents built from ROUTES, by the configuration they describe (one per server, in practice). */
const cache = new Map<string, unknown>();
openApiProvider.document = (config) => {
  const key = JSON.stringify([config.publicUrl, config.stagingUrl, config.llm?.model, config.imageModel?.model]);
  if (!cache.has(key)) cache.set(key, buildOpenApi(ROUTES, config));
  return cache.get(key);
};
