/** The one place that registers every route file: the route table. */
import { accountRoutes } from "../routes/account.js";
import { adminRoutes } from "../routes/admin.js";
import { apiKeyRoutes } from "../routes/apikeys.js";
import { authRoutes } from "../routes/auth.js";
import { billingRoutes } from "../routes/billing.js";
import { contentRoutes } from "../routes/contents.js";
import { conversionRoutes } from "../routes/conversions.js";
import { deviceAuthRoutes } from "../routes/device-auth.js";
import { docsRoutes } from "../routes/docs.js";
import { generateRoutes } from "../routes/generate.js";
import { graphRoutes } from "../routes/graph.js";
import { imageRoutes } from "../routes/images.js";
import { learningRoutes } from "../routes/learning.js";
import { libraryRoutes } from "../routes/library.js";
import { mcpRoutes } from "../routes/mcp.js";
import { modelRoutes } from "../routes/models.js";
import { scoringRoutes } from "../routes/scoring.js";
import { openApiProvider, systemRoutes } from "../routes/system.js";
import { usageRoutes } from "../routes/usage.js";
import { workspaceRoutes } from "../routes/workspaces.js";
import { buildOpenApi } from "./openapi.js";
import type { RouteDef } from "./route.js";

/** Every route of the server, in registration order. */
export const ROUTES: RouteDef[] = [
  ...systemRoutes,
  ...docsRoutes,
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

const cache = new Map<string, unknown>();
openApiProvider.document = (config) => {
  const key = JSON.stringify([config.publicUrl, config.stagingUrl, config.llm?.model, config.imageModel?.model]);
  if (!cache.has(key)) cache.set(key, buildOpenApi(ROUTES, config));
  return cache.get(key);
};
