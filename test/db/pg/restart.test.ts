/**
 * A PostgreSQL restart under a running server (issue 34 point 4): while the database is down every request that
 * needs it is answered 503 service_busy with Retry-After, and once it is back the same server answers 200 again
 * without a restart of its own (src/db/pg/thread.ts connects again at the next call). The database is a throwaway
 * cluster of the test's own (test/helpers/pg-cluster.ts), never the shared server.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningServer } from "../../../src/server/start.js";
import { expectCode, sendTo } from "../../helpers/http.js";
import { type Cluster, clusterUnavailable, startCluster } from "../../helpers/pg-cluster.js";
import { describePostgres } from "../../helpers/postgres.js";
import { initialisedDatabase, serverOn } from "../../helpers/postgres-servers.js";

/** Why the cluster cannot be made here (in CI, where .ci/run installs PostgreSQL, that is a failure). */
const unavailable = clusterUnavailable();

/** Requests tried, 200 ms apart, for the server to answer 200 again once PostgreSQL is back. */
const RECOVERY_ATTEMPTS = 150;

/** What the suite says instead of running where no cluster can be made: a failure in CI, a skip elsewhere. */
function noCluster(reason: string): void {
  if (process.env.CI)
    it("makes a throwaway PostgreSQL cluster", () => expect.fail(`cannot make a PostgreSQL cluster: ${reason}`));
  else it.skip(`skipped: ${reason}`, () => {});
}

describePostgres("a PostgreSQL restart under a running server", () => {
  if (unavailable) noCluster(unavailable);
  else restartSuite();
});

/** The suite proper, on a cluster of its own. */
function restartSuite(): void {
  let cluster: Cluster;
  let server: RunningServer;
  let key: string;

  beforeAll(async () => {
    cluster = await startCluster();
    key = initialisedDatabase(cluster.url);
    server = await serverOn(cluster.url);
  });

  afterAll(async () => {
    // The server flushes to the database as it closes: a test that failed while it was down starts it again first.
    try {
      if (cluster && !cluster.running()) cluster.start();
      await server?.close();
    } finally {
      cluster?.destroy();
    }
  });

  const current = () => sendTo(server.app, "GET", "/api/v1/api-keys/current", { auth: key });
  const remember = (content: string) =>
    sendTo(server.app, "POST", "/api/v1/memories", { auth: key, body: { kind: "context", title: "Note", content } });

  it("answers 503 service_busy with Retry-After while PostgreSQL is down, and 200 once it is back", async () => {
    expect((await current()).status).toBe(200);

    cluster.stop();
    for (const res of [await current(), await remember("while down")]) {
      expectCode(res, 503, "service_busy");
      expect(res.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
      expect(res.body.details.retry_after_seconds).toBe(Number(res.headers.get("retry-after")));
    }

    cluster.start();
    let status = 0;
    for (let i = 0; i < RECOVERY_ATTEMPTS && status !== 200; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 200));
      status = (await current()).status;
    }
    expect(status).toBe(200);
    const made = await remember("after the restart");
    expect(made.status).toBe(201);
    const read = await sendTo(server.app, "GET", `/api/v1/memories/${made.body.id}`, { auth: key });
    expect(read.body.content).toBe("after the restart");
  });
}
