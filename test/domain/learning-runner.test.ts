import { describe, expect, it } from "vitest";
import { migrate } from "../../src/db/migrate.js";
import { openDb } from "../../src/db/open.js";
import { createStore } from "../../src/db/store.js";
import { createAccount } from "../../src/domain/admin.js";
import { ManualClock } from "../../src/domain/clock.js";
import { analyzeEdit } from "../../src/domain/learning/analyze.js";
import { completeJob } from "../../src/domain/learning/complete.js";
import { backoffMs, LearningRunner, MAX_ATTEMPTS } from "../../src/domain/learning/runner.js";
import { startSchedules } from "../../src/jobs/schedules.js";
import { memoryLogger } from "../../src/runtime/log.js";
import { inlinePool, type WorkerPool } from "../../src/workers/pool.js";

function setup(pool: WorkerPool) {
  const db = openDb(":memory:");
  migrate(db);
  const store = createStore(db);
  const clock = new ManualClock();
  const { account, workspace } = createAccount(store, "test", "A", "business", clock.now());
  const content = store.contents.create({
    accountId: account.id,
    workspaceId: workspace.id,
    templateId: 1,
    title: "t",
    content: "x",
    status: "finalized",
    now: new Date(clock.now()).toISOString(),
  });
  const enqueue = (id: string) =>
    store.learning.enqueue({
      id,
      accountId: account.id,
      workspaceId: workspace.id,
      contentId: content.id,
      input: { generated: "We utilize it.", finalized: "We use it.", edit_seconds: 5 },
      now: new Date(clock.now()).toISOString(),
    });
  const logger = memoryLogger();
  const runner = new LearningRunner(store, pool, clock, logger);
  return { db, store, clock, runner, enqueue, workspace, logger, content };
}

/** A pool whose analyzeEdit fails the first `failures` times. */
function flakyPool(failures: number): WorkerPool {
  const inner = inlinePool();
  let left = failures;
  return {
    run: (name, input) => {
      if (name === "analyzeEdit" && left-- > 0) return Promise.reject(new Error("worker crashed"));
      return inner.run(name, input);
    },
    close: inner.close,
  };
}

describe("learning job runner", () => {
  it("resumes jobs a crash left queued or running", async () => {
    const { store, clock, runner, enqueue, workspace } = setup(inlinePool());
    enqueue("lj_queued");
    enqueue("lj_running");
    const now = new Date(clock.now()).toISOString();
    const claimed = store.learning.claimNext({ owner: "srv_before", now, leaseUntil: "2999-01-01T00:00:00.000Z" });
    expect(store.learning.job(claimed!.id)!.status).toBe("running");
    runner.start();
    await runner.idle();
    expect(store.learning.job("lj_queued")!.status).toBe("succeeded");
    expect(store.learning.job("lj_running")!.status).toBe("succeeded");
    expect(store.learning.profileOfWorkspace(workspace.id)!.sample_count).toBe(2);
  });

  it("runs again a job whose lease passed, and leaves alone one whose lease holds", async () => {
    const { store, clock, runner, enqueue } = setup(inlinePool());
    const lease = { owner: "srv_live", ms: 30 };
    const leased = new LearningRunner(
      store,
      inlinePool(),
      clock,
      memoryLogger(),
      undefined,
      2,
      undefined,
      undefined,
      lease,
    );
    leased.start();
    enqueue("lj_held");
    enqueue("lj_orphan");
    const at = (ms: number) => new Date(clock.now() + ms).toISOString();
    // Claimed by servers that neither renew nor end them: one lease ends in 10 ms of the clock, the other in a day.
    expect(store.learning.claimNext({ owner: "srv_gone", now: at(0), leaseUntil: at(86_400_000) })!.id).toBe("lj_held");
    expect(store.learning.claimNext({ owner: "srv_gone", now: at(0), leaseUntil: at(10) })!.id).toBe("lj_orphan");
    clock.advance(20);
    const started = Date.now();
    while (store.learning.job("lj_orphan")!.status !== "succeeded" && Date.now() - started < 10_000)
      await new Promise((r) => setTimeout(r, 10));
    await leased.stop();
    await runner.stop();
    expect(store.learning.job("lj_orphan")).toMatchObject({ status: "succeeded", attempts: 2, claimed_by: "srv_live" });
    expect(store.learning.job("lj_held")).toMatchObject({ status: "running", attempts: 1, claimed_by: "srv_gone" });
  });

  it("stores and folds nothing from a claim that is no longer the job's, and the current claim's result once", () => {
    const { store, clock, enqueue, workspace } = setup(inlinePool());
    enqueue("lj_reclaimed");
    const at = (ms: number) => new Date(clock.now() + ms).toISOString();
    store.learning.claimNext({ owner: "srv_slow", now: at(0), leaseUntil: at(10) });
    expect(store.learning.requeueExpired(at(10))).toBe(1);
    const again = store.learning.claimNext({ owner: "srv_next", now: at(10), leaseUntil: at(60_000) })!;
    expect(again).toMatchObject({ id: "lj_reclaimed", attempts: 2 });
    const result = analyzeEdit({ generated: "We utilize it.", finalized: "We use it.", edit_seconds: 5 });
    const stale = { owner: "srv_slow", attempt: 1 };
    expect(completeJob(store, { id: "lj_reclaimed", claim: stale, result, now: at(20) })).toBeNull();
    expect(store.learning.profileOfWorkspace(workspace.id)).toBeUndefined();
    expect(store.learning.renew("lj_reclaimed", stale, at(60_000))).toBe(false);
    const current = { owner: "srv_next", attempt: 2 };
    expect(completeJob(store, { id: "lj_reclaimed", claim: current, result, now: at(30) })).not.toBeNull();
    expect(completeJob(store, { id: "lj_reclaimed", claim: current, result, now: at(40) })).toBeNull();
    expect(store.learning.profileOfWorkspace(workspace.id)!.sample_count).toBe(1);
    expect(store.learning.job("lj_reclaimed")).toMatchObject({ status: "succeeded", claimed_by: "srv_next" });
  });

  it("retries a failed job with backoff until it succeeds", async () => {
    const { store, clock, runner, enqueue } = setup(flakyPool(2));
    enqueue("lj_flaky");
    runner.kick();
    await runner.idle();
    let job = store.learning.job("lj_flaky")!;
    expect(job).toMatchObject({ status: "failed", attempts: 1, error: "worker crashed" });
    expect(Date.parse(job.next_attempt_at!)).toBe(clock.now() + backoffMs(1));
    expect(runner.retryFailed()).toBe(0);
    clock.advance(backoffMs(1));
    expect(runner.retryFailed()).toBe(1);
    await runner.idle();
    job = store.learning.job("lj_flaky")!;
    expect(job).toMatchObject({ status: "failed", attempts: 2 });
    clock.advance(backoffMs(2));
    runner.retryFailed();
    await runner.idle();
    expect(store.learning.job("lj_flaky")!).toMatchObject({ status: "succeeded", attempts: 3, error: null });
  });

  it("drops a job deleted with its content while it ran, without logging a failure", async () => {
    const inner = inlinePool();
    let remove = () => {};
    const pool: WorkerPool = {
      run: (name, input) => {
        if (name !== "analyzeEdit") return inner.run(name, input);
        remove();
        return Promise.reject(new Error("content 1 not found"));
      },
      close: inner.close,
    };
    const { db, store, runner, enqueue, logger, content } = setup(pool);
    remove = () => db.prepare("DELETE FROM contents WHERE id = ?").run(content.id);
    enqueue("lj_gone");
    await runner.idle();
    expect(store.learning.job("lj_gone")).toBeUndefined();
    expect(logger.lines.filter((l) => l.level === "error")).toEqual([]);
    expect(logger.lines).toContainEqual(expect.objectContaining({ level: "info", job_id: "lj_gone" }));
  });

  it("gives up after the last attempt", async () => {
    const { store, clock, runner, enqueue } = setup(flakyPool(100));
    enqueue("lj_doomed");
    runner.kick();
    await runner.idle();
    for (let i = 1; i < MAX_ATTEMPTS; i++) {
      clock.advance(backoffMs(i));
      runner.retryFailed();
      await runner.idle();
    }
    const job = store.learning.job("lj_doomed")!;
    expect(job).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS, next_attempt_at: null });
    clock.advance(backoffMs(MAX_ATTEMPTS) * 10);
    expect(runner.retryFailed()).toBe(0);
  });

  it("runs periodic jobs with node-cron", async () => {
    let calls = 0;
    const stop = startSchedules([{ name: "tick", expression: "* * * * * *", run: () => void calls++ }], () => {});
    const started = Date.now();
    while (calls === 0 && Date.now() - started < 5_000) await new Promise((r) => setTimeout(r, 50));
    await stop();
    expect(calls).toBeGreaterThan(0);
  });

  it("analyses the versions a job names, and fails a job whose versions are gone", async () => {
    const { store, clock, runner, workspace } = setup(inlinePool());
    const now = new Date(clock.now()).toISOString();
    const content = store.contents.byId(1)!;
    const version = (n: number, kind: "generated" | "finalized", text: string) =>
      store.contents.addVersion({
        contentId: content.id,
        version: n,
        kind,
        title: "t",
        text,
        model: null,
        details: {},
        now,
      });
    version(1, "generated", "We utilize the tool. It is great.");
    version(2, "finalized", "We use the tool. It is great.");
    const job = (id: string, input: unknown) =>
      store.learning.enqueue({
        id,
        accountId: content.account_id,
        workspaceId: workspace.id,
        contentId: content.id,
        input,
        now,
      });
    job("lj_refs", { generated_version: 1, finalized_version: 2, edit_seconds: 30 });
    job("lj_gone", { generated_version: 1, finalized_version: 7, edit_seconds: 30 });
    await runner.idle();
    const done = store.learning.job("lj_refs")!;
    expect(done.status).toBe("succeeded");
    expect(JSON.stringify(JSON.parse(done.result!))).toContain("utilize");
    const gone = store.learning.job("lj_gone")!;
    expect(gone.status).toBe("failed");
    expect(gone.error).toContain("are gone");
  });
});
