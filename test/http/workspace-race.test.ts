/**
 * A workspace deleted while a request that writes into it waits on the worker pool: the request answers 404
 * workspace_not_found, not a 500 of a failed foreign key, and leaves nothing behind.
 */
import { describe, expect, it } from "vitest";
import { inlinePool, type WorkerPool } from "../../src/workers/pool.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, sessionOf } from "../helpers/http.js";

/** The inline pool, whose tasks wait until `open()`; `waiting` counts the tasks held. */
function gatedPool() {
  const inner = inlinePool();
  let open = () => {};
  const gate = new Promise<void>((r) => {
    open = r;
  });
  const held = { waiting: 0 };
  const pool: WorkerPool = {
    run: async (name, input) => {
      held.waiting++;
      await gate;
      return inner.run(name, input);
    },
    close: () => inner.close(),
  };
  return { pool, held, open };
}

describe("a workspace deleted while a write into it waits on the worker pool", () => {
  it("answers 404 workspace_not_found to a generation and a reference material, and stores neither", async () => {
    const gated = gatedPool();
    const h = makeHarness({ pool: gated.pool });
    const key = h.key();
    const token = await sessionOf(h, "admin@a.test");
    const ws = h.a.ws2;

    const generation = h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "How the team plans the quarter", workspace_id: ws },
    });
    const reference = h.send("POST", "/api/v1/reference-materials", {
      auth: key,
      body: { title: "Notes", content: "The team plans the quarter.", format: "text", workspace_id: ws },
    });
    while (gated.held.waiting < 2) await new Promise((r) => setTimeout(r, 5));
    expect((await h.send("DELETE", `/api/v1/workspaces/${ws}`, { auth: token })).status).toBe(200);
    gated.open();

    for (const res of [await generation, await reference]) {
      const details = expectErrorBody(res, 404, "workspace_not_found");
      expect(details.workspace_id).toBe(ws);
    }
    const count = (table: string) =>
      (
        h.services.store.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE workspace_id = ?`).get(ws) as {
          n: number;
        }
      ).n;
    expect(count("contents")).toBe(0);
    expect(count("reference_materials")).toBe(0);
  });
});
