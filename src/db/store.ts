/** Every query module of one connection, prepared once. */
import { accountQueries } from "./accounts.js";
import { apiKeyQueries } from "./apikeys.js";
import { contentQueries } from "./contents.js";
import { conversionQueries } from "./conversions.js";
import { graphQueries } from "./graph.js";
import { idempotencyQueries } from "./idempotency.js";
import { imageQueries } from "./images.js";
import { learningQueries } from "./learning.js";
import { libraryQueries } from "./library.js";
import { miscQueries } from "./misc.js";
import type { Db } from "./open.js";
import { usageQueries } from "./usage.js";
import { userQueries } from "./users.js";
import { workspaceQueries } from "./workspaces.js";

/** The named queries the rest of the program uses; nothing else writes SQL. */
export function createStore(db: Db) {
  return {
    db,
    accounts: accountQueries(db),
    workspaces: workspaceQueries(db),
    users: userQueries(db),
    apiKeys: apiKeyQueries(db),
    misc: miscQueries(db),
    ...libraryQueries(db),
    images: imageQueries(db),
    contents: contentQueries(db),
    learning: learningQueries(db),
    conversions: conversionQueries(db),
    graph: graphQueries(db),
    usage: usageQueries(db),
    idempotency: idempotencyQueries(db),
  };
}

export type Store = ReturnType<typeof createStore>;
