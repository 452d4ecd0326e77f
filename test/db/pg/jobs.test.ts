/**
 * Jobs over two servers on one PostgreSQL database (issue 34 point 2): each learning job runs once however the
 * finalizations spread over the servers, a job whose server stopped holding it is finished by the other once its
 * lease has passed, and a periodic job's period runs on one server only.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { OpenConnection } from "../../../src/db/connection.js";
import type { LearningJobRow } from "../../../src/db/learning.js";
import { openPostgres } from "../../../src/db/pg/connection.js";
import { createStore } from "../../../src/db/store.js";
import { oncePerPeriod } from "../../../src/jobs/once-per-period.js";
import { periodClaim, type RunningServer } from "../../../src/server/start.js";
import { sendTo } from "../../helpers/http.js";
import { describePostgres, type TestDatabase, testDatabase } from "../../helpers/postgres.js";
import { initialisedDatabase, serverOn } from "../../helpers/postgres-servers.js";

/** A short lease, so that a job whose server stopped is claimed again within seconds; renewed every second. */
const LEASE_MS = 3_000;

/** Resolves once `done` holds, polling; fails past `ms` (a bound for a stuck job, not a timing measured). */
async function until(done: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error("the condition did not hold in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describePostgres("jobs over two servers on one PostgreSQL database", () => {
  let database: TestDatabase;
  let one: RunningServer;
  let two: RunningServer;
  let key: string;
  let db: OpenConnection;
  let store: ReturnType<typeof createStore>;

  beforeAll(async () => {
    database = await testDatabase();
    key = initialisedDatabase(database.url);
    one = await serverOn(database.url, { learningLeaseMs: LEASE_MS });
    two = await serverOn(database.url, { learningLeaseMs: LEASE_MS });
    db = openPostgres(database.url);
    store = createStore(db);
  });

  afterAll(async () => {
    await Promise.allSettled([one?.close(), two?.close()]);
    db?.close();
    await database?.drop();
  });

  const backlog = () => store.learning.backlog();
  const allJobs = () => db.prepare<[], LearningJobRow>("SELECT * FROM learning_jobs ORDER BY created_at, id").all();
  const samples = (workspaceId: string) => store.learning.profileOfWorkspace(workspaceId)?.sample_count ?? 0;

  it("runs each learning job once, the finalizations spread over both servers", async () => {
    for (let i = 0; i < 8; i++) {
      const server = i % 2 ? two : one;
      const made = await sendTo(server.app, "POST", "/api/v1/generate", {
        auth: key,
        body: { template_id: 1, user_direction: `Post ${i} on servers sharing one database.`, seed: i },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const finalized = await sendTo(server.app, "POST", "/api/v1/finalizeContent", {
        auth: key,
        body: { content_id: made.body.content_id, finalized_content: `${made.body.content}\n\nEdited ${i}.` },
      });
      expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    }
    await until(() => backlog() === 0);
    const rows = allJobs();
    expect(rows).toHaveLength(8);
    for (const row of rows) {
      expect(row).toMatchObject({ status: "succeeded", attempts: 1 });
      expect([one.services.learning.owner, two.services.learning.owner]).toContain(row.claimed_by);
    }
    expect(samples(rows[0]!.workspace_id)).toBe(8);
  }, 120_000);

  it("finishes on the other server a job whose server stopped holding it, once its lease has passed", async () => {
    const made = await sendTo(one.app, "POST", "/api/v1/contents", {
      auth: key,
      body: { title: "Orphan", content: "A content whose job's server died." },
    });
    expect(made.status).toBe(201);
    const content = store.contents.byId(made.body.content_id)!;
    const before = samples(content.workspace_id);
    const now = Date.now();
    // Queued and claimed in one transaction, by a server that never renews nor ends it: no live server can take it first.
    const claimed = store.transaction(() => {
      store.learning.enqueue({
        id: "lj_orphan",
        accountId: content.account_id,
        workspaceId: content.workspace_id,
        contentId: content.id,
        input: { generated: "We utilize the tool.", finalized: "We use the tool.", edit_seconds: 5 },
        now: new Date(now).toISOString(),
      });
      return store.learning.claimNext({
        owner: "srv_gone",
        now: new Date(now).toISOString(),
        leaseUntil: new Date(now + 500).toISOString(),
      });
    });
    expect(claimed).toMatchObject({ id: "lj_orphan", attempts: 1 });
    await until(() => store.learning.job("lj_orphan")!.status === "succeeded");
    const done = store.learning.job("lj_orphan")!;
    expect(done.attempts).toBe(2);
    expect([one.services.learning.owner, two.services.learning.owner]).toContain(done.claimed_by);
    expect(samples(content.workspace_id)).toBe(before + 1);
    // The server that had claimed it cannot end it any more: its claim is not the job's.
    expect(store.learning.succeed("lj_orphan", { owner: "srv_gone", attempt: 1 }, {}, new Date().toISOString())).toBe(
      false,
    );
  }, 60_000);

  it("runs a periodic job's period on one server only", async () => {
    let runs = 0;
    const job = { name: "test-tick", expression: "* * * * *", run: () => void runs++ };
    const minute = Date.parse("2030-06-15T09:00:00.000Z");
    for (let period = 0; period < 3; period++) {
      // Both servers fire the same period (seconds apart within its minute), at once.
      const at = (s: number) => () => minute + period * 60_000 + s * 1000;
      await Promise.all([
        oncePerPeriod(job, periodClaim(one.services), at(1)).run(),
        oncePerPeriod(job, periodClaim(two.services), at(7)).run(),
      ]);
      expect(runs).toBe(period + 1);
    }
    const ranBy = db
      .prepare<[], { ran_by: string }>("SELECT ran_by FROM periodic_runs WHERE job = 'test-tick' ORDER BY period_start")
      .all();
    expect(ranBy).toHaveLength(3);
    for (const row of ranBy) expect([one.services.learning.owner, two.services.learning.owner]).toContain(row.ran_by);
  });
});
