/**
 * A task on the worker pool stopped past its processing time (workers/limits.ts): the request that waited for it
 * answers 422 processing_limit_exceeded; a learning analysis fails without retries; a knowledge-graph source is kept
 * as one that yields nothing, not extracted again at every catch-up. The thread side is in test/workers/limit.test.ts.
 */
import { describe, expect, it } from "vitest";
import { backoffMs } from "../../src/domain/learning/runner.js";
import { TaskLimitError } from "../../src/runtime/task-pool.js";
import { TASK_CPU_LIMIT_MS } from "../../src/workers/limits.js";
import type { TaskName } from "../../src/workers/tasks.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, generateAndFinalize } from "../helpers/http.js";
import { hookedPool } from "../helpers/pools.js";

/** The inline pool, but the named tasks are stopped as if past the limit; `calls` counts them by name. */
function stoppingPool(...stopped: TaskName[]) {
  const calls: Record<string, number> = {};
  const pool = hookedPool((name) => {
    calls[name] = (calls[name] ?? 0) + 1;
    if (stopped.includes(name)) throw new TaskLimitError(name, TASK_CPU_LIMIT_MS);
  });
  return { pool, calls };
}

const TEXT = "Acme Corp opened an office in New York. Jane Doe leads the New York office for Acme Corp.";

describe("a request whose task is stopped past its processing time", () => {
  it("answers 422 processing_limit_exceeded, with the limit, on every route that processes input on the pool", async () => {
    const { pool } = stoppingPool("generateBuiltin", "thesis", "ingestText", "convertContent", "scoreText");
    const h = makeHarness({ pool });
    const key = h.key();
    const draft = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "Plan", content: TEXT } });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const requests: [string, unknown][] = [
      ["/api/v1/generate", { template_id: 1, user_direction: "How the team plans the quarter" }],
      ["/api/v1/thesis", { user_direction: "How the team plans the quarter" }],
      ["/api/v1/reference-materials", { content: TEXT, format: "html" }],
      ["/api/v1/conversions", { content_id: draft.body.content_id, target_format: "html" }],
      ["/api/v1/scoring", { text: TEXT }],
    ];
    for (const [path, body] of requests) {
      const res = await h.send("POST", path, { auth: key, body });
      const details = expectErrorBody(res, 422, "processing_limit_exceeded");
      expect(details, path).toMatchObject({ limit_cpu_seconds: TASK_CPU_LIMIT_MS / 1000 });
    }
    // Nothing was stored by the requests that create records.
    expect((await h.send("GET", "/api/v1/reference-materials", { auth: key })).body.data).toEqual([]);
    expect((await h.send("GET", "/api/v1/conversions", { auth: key })).body.data).toEqual([]);
    expect((await h.send("GET", "/api/v1/contents", { auth: key })).body.data).toHaveLength(1);
  });
});

describe("a knowledge-graph read stopped past its processing time", () => {
  it("answers 422 processing_limit_exceeded, documented for both graph reads", async () => {
    const { pool, calls } = stoppingPool("graphRead");
    const h = makeHarness({ pool });
    // As on a server with a database file: the reads go to the pool.
    h.services.location = { dataDir: "/unused-by-the-stopping-pool" };
    const key = h.key();
    for (const path of ["/api/v1/knowledge-graph", "/api/v1/knowledge-graph/entities?q=acme"]) {
      const details = expectErrorBody(await h.send("GET", path, { auth: key }), 422, "processing_limit_exceeded");
      expect(details, path).toMatchObject({ limit_cpu_seconds: TASK_CPU_LIMIT_MS / 1000 });
    }
    expect(calls.graphRead).toBe(2);
  });
});

describe("a learning analysis stopped past its processing time", () => {
  it("fails at once and is not retried", async () => {
    const { pool, calls } = stoppingPool("analyzeEdit");
    const h = makeHarness({ pool });
    const key = h.key({ expires: "never" });
    const { finalized: fin } = await generateAndFinalize(
      h,
      key,
      { template_id: 1, user_direction: "How the team plans the quarter" },
      { text: (generated) => `${generated}\n\nOne more line.`, editSeconds: 60 },
    );
    expect(fin.body.learning_triggered).toBe(true);
    await h.services.learning.idle();
    const jobPath = `/api/v1/learning-jobs/${fin.body.learning_job_id}`;
    const job = await h.send("GET", jobPath, { auth: key });
    expect(job.body).toMatchObject({ status: "failed", attempts: 1 });
    expect(job.body.error).toMatch(/processing time/);

    // Past every backoff, the periodic retry leaves it alone.
    h.clock.advance(backoffMs(10));
    expect(h.services.learning.retryFailed()).toBe(0);
    await h.services.learning.idle();
    expect((await h.send("GET", jobPath, { auth: key })).body).toMatchObject({ status: "failed", attempts: 1 });
    expect(calls.analyzeEdit).toBe(1);
  });
});

describe("a knowledge-graph extraction stopped past its processing time", () => {
  it("keeps the source as one that yields nothing, and does not extract it again", async () => {
    const { pool, calls } = stoppingPool("extractGraph");
    const h = makeHarness({ pool });
    const key = h.key();
    const ref = await h.send("POST", "/api/v1/reference-materials", {
      auth: key,
      body: { content: TEXT, format: "text" },
    });
    expect(ref.status, JSON.stringify(ref.body)).toBe(201);
    await h.services.graph.idle();
    const graph = await h.send("GET", "/api/v1/knowledge-graph", { auth: key });
    expect(graph.status).toBe(200);
    expect(graph.body.nodes).toEqual([]);
    expect(calls.extractGraph).toBe(1);
    expect(
      h.logger.lines.some((l) => l.message === "knowledge graph extraction stopped past its processing time"),
    ).toBe(true);

    // Another source's catch-up extracts that one only.
    await h.send("POST", "/api/v1/reference-materials", {
      auth: key,
      body: { content: "Globex Inc. met Acme Corp.", format: "text" },
    });
    await h.services.graph.idle();
    expect(calls.extractGraph).toBe(2);
  });
});
