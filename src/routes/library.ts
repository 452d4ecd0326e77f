/** The content library's routes (templates, memories, reference materials), registered together in the route table. */
import type { RouteDef } from "../http/route.js";
import { memoryRoutes } from "./memories.js";
import { referenceRoutes } from "./references.js";
import { templateRoutes } from "./templates.js";

/** Templates, then memories, then reference materials. */
export const libraryRoutes: RouteDef[] = [...templateRoutes, ...memoryRoutes, ...referenceRoutes];
