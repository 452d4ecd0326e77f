/**
 * `init --demo`: the demo records (sandbox/fixtures-demo.ts) added to the first account's default workspace, through
 * the API's operations in process, as a fixture's records are (sandbox/fixtures.ts). Held by test/cli/init-demo.test.ts.
 */
import { openDb } from "../../db/open.js";
import { createApp } from "../../http/app.js";
import { ROUTES } from "../../routes/index.js";
import { memoryLogger } from "../../runtime/log.js";
import { loadAccountRecords } from "../../sandbox/fixtures.js";
import { DEMO_TEMPLATES, DEMO_WORKSPACE } from "../../sandbox/fixtures-demo.js";
import { createServices } from "../../server/services.js";
import { inlinePool } from "../../workers/pool.js";
import { openPostgresDatabase } from "../database.js";

/** What the demo added, for init's output. */
export interface DemoSeeded {
  templates: number;
  references: number;
  memories: number;
  contents: Record<string, number>;
}

/** Adds the demo records to an account's workspace of a migrated data directory (or PostgreSQL database). */
export async function seedDemo(
  where: { dataDir: string; databaseUrl?: string },
  accountId: number,
  workspaceId: string,
): Promise<DemoSeeded> {
  const db = where.databaseUrl ? openPostgresDatabase(where.databaseUrl) : openDb(where.dataDir);
  const services = createServices({ db, pool: inlinePool(), logger: memoryLogger() });
  try {
    const workspace = services.store.workspaces.byId(workspaceId);
    if (!workspace) throw new Error(`no workspace ${workspaceId}`);
    const app = createApp(services, ROUTES);
    await loadAccountRecords(app, services, accountId, DEMO_TEMPLATES, [workspace], [DEMO_WORKSPACE], "demo");
    // The graph's extraction of the new sources runs on this thread's pool: done before the database closes.
    await services.graph.idle();
    services.keyUsage.flush();
    services.usage.flush();
  } finally {
    db.close();
  }
  const contents: Record<string, number> = {};
  for (const c of DEMO_WORKSPACE.contents ?? [])
    contents[c.status ?? "draft"] = (contents[c.status ?? "draft"] ?? 0) + 1;
  return {
    templates: DEMO_TEMPLATES.length,
    references: DEMO_WORKSPACE.references?.length ?? 0,
    memories: DEMO_WORKSPACE.memories?.length ?? 0,
    contents,
  };
}

/** init's line of what the demo added. */
export function demoLine(seeded: DemoSeeded): string {
  const contents = Object.entries(seeded.contents)
    .map(([status, n]) => `${n} ${status}`)
    .join(", ");
  return (
    `  demo: ${seeded.templates} template, ${seeded.references} reference materials, ${seeded.memories} memories, ` +
    `contents (${contents}) in the default workspace\n`
  );
}
