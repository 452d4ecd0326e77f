/**
 * What the HTTP thread keeps after a load of large answers (issue 31 point 1). Starts the server in this process on
 * a fresh data directory, stores RSS_CONTENTS (12) contents of 500,000 characters, runs the bursts of RSS_PLAN
 * (default get:20x3: 3 rounds of 20 concurrent GET /contents?limit=100; also mcp:N, batches of 8 list_contents, and
 * upload:N, bench/stall.ts's M1), prints RSS and the heap after each round and every 10 s of RSS_WAIT_SECONDS (10),
 * then after a forced collection. `node --import tsx bench/rss-probe.ts` shows what the server gives back by itself
 * (runtime/idle-gc.ts); with `node --expose-gc` the script's own collections (timed) show what was garbage, and
 * RSS_GC_EACH=1 collects after every round too (a heap that grows round after round is a retainer). RSS_SNAPSHOT=1
 * writes a heap snapshot after them. The script's client shares the process: its garbage is in the figures too.
 */
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import { createAccount, issueKey, setLimits } from "../src/domain/admin.js";
import { memoryLogger } from "../src/runtime/log.js";
import { startServer } from "../src/server/start.js";
import { longText, m1Upload, mcpListBatch } from "./lib/stall-bursts.js";

const env = process.env;
const CONTENTS = Number(env.RSS_CONTENTS ?? 12);
const ROUNDS = Number(env.RSS_ROUNDS ?? 3);
const CONCURRENCY = Number(env.RSS_CONCURRENCY ?? 20);
const WAIT = Number(env.RSS_WAIT_SECONDS ?? 10);

const agent = new http.Agent({ keepAlive: true, maxSockets: 100 });
function request(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(url, { agent, method, headers }, (res) => {
      let bytes = 0;
      res.on("data", (c: Buffer) => {
        bytes += c.byteLength;
      });
      res.once("end", () => resolve(bytes));
    });
    req.once("error", () => resolve(-1));
    req.end(body);
  });
}

const MB = (n: number) => Math.round(n / 1048576);
function figures(label: string): void {
  const m = process.memoryUsage();
  const h = v8.getHeapStatistics();
  console.log(
    `${label}: rss ${MB(m.rss)} heapUsed ${MB(m.heapUsed)} heapTotal ${MB(m.heapTotal)} external ${MB(m.external)} ` +
      `arrayBuffers ${MB(m.arrayBuffers)} | v8 used ${MB(h.used_heap_size)} total ${MB(h.total_heap_size)} ` +
      `physical ${MB(h.total_physical_size)} malloced ${MB(h.malloced_memory)}`,
  );
}
/** The script's own full collection (with --expose-gc), timed. */
function collect(label: string): void {
  const t = performance.now();
  globalThis.gc?.();
  figures(`${label} (${globalThis.gc ? `${Math.round(performance.now() - t)} ms` : "no gc"})`);
}
const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

const dir = mkdtempSync(path.join(os.tmpdir(), "cs-rss-"));
const logger = memoryLogger();
const server = await startServer({ dataDir: dir, host: "127.0.0.1", port: 0, workers: 1, logger });
try {
  const store = server.services.store;
  const { account } = createAccount(store, "bench", "Bench", "agency");
  setLimits(store, "bench", account.id, 1_000_000_000, 1_000_000_000);
  const key = issueKey(store, "bench", { accountId: account.id, name: "bench" }).secret;
  const auth = { authorization: `Bearer ${key}` };
  for (let i = 0; i < CONTENTS; i++) {
    const body = JSON.stringify({ title: `Long ${i + 1}`, content: longText(500_000, i) });
    await request(`${server.url}/api/v1/contents`, "POST", { ...auth, "content-type": "application/json" }, body);
  }
  await sleep(2);
  collect("idle, after gc");
  const batch = mcpListBatch();
  // RSS_PLAN: bursts as kind:concurrency x rounds, comma-separated (get: GET /contents?limit=100; mcp: a batch of 8
  // list_contents).
  const upload = m1Upload();
  const plan = env.RSS_PLAN ?? `get:${CONCURRENCY}x${ROUNDS}`;
  for (const step of plan.split(",")) {
    const [kind, counts] = step.split(":");
    const [concurrency, rounds] = counts.split("x").map(Number);
    for (let r = 0; r < rounds; r++) {
      const t = performance.now();
      const sizes = await Promise.all(
        Array.from({ length: concurrency }, () =>
          kind === "upload"
            ? request(
                `${server.url}/api/v1/reference-materials`,
                "POST",
                { ...auth, "content-type": upload.type },
                upload.body,
              )
            : kind === "mcp"
              ? request(
                  `${server.url}/api/v1/mcp`,
                  "POST",
                  { ...auth, "content-type": "application/json", accept: "application/json" },
                  batch,
                )
              : request(`${server.url}/api/v1/contents?limit=100`, "GET", auth),
        ),
      );
      console.log(
        `${kind} ${concurrency} round ${r + 1}: ${Math.round(performance.now() - t)} ms, answer ${MB(Math.max(...sizes))} MB`,
      );
      figures("  after");
      if (env.RSS_GC_EACH === "1") {
        collect("  after gc");
      }
    }
  }
  for (let s = 10; s < WAIT; s += 10) {
    await sleep(10);
    figures(`after ${s} s idle`);
  }
  await sleep(WAIT % 10 || 10);
  figures(`after ${WAIT} s idle`);
  collect("after gc");
  await sleep(2);
  collect("after 2 s, gc");
  console.log(`log lines kept: ${logger.lines.length}`);
  if (env.RSS_SNAPSHOT === "1")
    console.log(`snapshot: ${v8.writeHeapSnapshot(path.join(os.tmpdir(), "rss-probe.heapsnapshot"))}`);
} finally {
  agent.destroy();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
