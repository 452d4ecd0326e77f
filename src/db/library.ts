/** The content library's query modules (templates, memories, reference materials), registered together in the store. */

import type { SqlConnection } from "./connection.js";
import { memoryQueries } from "./memories.js";
import { referenceQueries } from "./references.js";
import { templateQueries } from "./templates.js";

/** Prepared library statements of one connection, as `store.templates`, `store.memories` and `store.references`. */
export function libraryQueries(db: SqlConnection) {
  return {
    templates: templateQueries(db),
    memories: memoryQueries(db),
    references: referenceQueries(db),
  };
}
