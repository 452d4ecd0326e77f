/**
 * The crash run shared by `npm run crash` and test/db/crash-load.test.ts: a mixed write load (generate, finalize,
 * reference create) against a server that is killed with SIGKILL at seeded random moments; after every restart,
 * every write answered 2xx must be in the database, `PRAGMA integrity_check` must be ok, and the learning job of
 * every acknowledged finalization must reach `succeeded`. After every `startupKillEvery`-th of those kills, the next
 * start is killed too, at a seeded random moment between its `database opened` log line and its first ready answer
 * (the WAL recovery of the database left by the kill, the migrations check, the learning jobs' resumption), and the
 * start after it must pass the same checks. The moment is counted from that line, not from the spawn: from the source
 * tree most of a start is Node and tsx loading modules, and a kill drawn from the whole start rarely reached the
 * database.
 */
import { createHash } from "node:crypto";
import { contentQueries } from "../../src/db/contents.js";
import { openDb } from "../../src/db/open.js";
import { prng, words } from "./text.js";

/** The log line a server writes once it has opened its database, before recovering and migrating it. */
export const OPENED_MARKER = '"message":"database opened"';

/** A server process just spawned, not yet ready. */
export interface CrashStart {
  /** performance.now() at the spawn: every kill's moment is logged from it. */
  spawnedAt: number;
  /**
   * Resolves with performance.now() when the server's `database opened` line (OPENED_MARKER) is seen; rejects when
   * the process exits, or answers ready, without one.
   */
  opened: Promise<number>;
  /** Resolves at the server's first ready answer; rejects when it exits (or gives up) before. */
  ready: Promise<CrashServer>;
  /** SIGKILL, then waits for the process to end (ready or not). */
  kill(): Promise<void>;
}

/** A running server the crash run may kill. */
export interface CrashServer {
  url: string;
  /** SIGKILL, then waits for the process to end. */
  kill(): Promise<void>;
  /** SIGTERM, then waits for the process to end. */
  stop(): Promise<void>;
}

export interface CrashOptions {
  seed: number;
  kills: number;
  dataDir: string;
  /** A read+write key of account 1 (limits raised). */
  key: string;
  /** Spawns a server; resolves at the spawn, not at readiness. */
  start(): Promise<CrashStart>;
  /**
   * After every this many load kills, a start-up kill: the next start is killed at a seeded random fraction of the
   * shortest time from a `database opened` line to the ready answer seen so far, counted from its own line (default
   * 0: none).
   */
  startupKillEvery?: number;
  /** Concurrent writers (default 6). */
  concurrency?: number;
  /** The kill comes this many milliseconds after the round's first acknowledged write, drawn from the seed (default 500–4,000). */
  killAfterMs?: [number, number];
  /** Words of a reference material (default 2,000) and of a finalized text (default 5,000). */
  referenceWords?: number;
  finalizeWords?: number;
  /** Longest wait after a restart with no learning job ending: stuck jobs fail the check (default 120 s). */
  learningTimeoutMs?: number;
  log?(line: string): void;
}

export interface CrashRound {
  round: number;
  killAfterMs: number;
  acknowledged: { references: number; generations: number; finalizations: number };
  /** Requests that got no complete answer (cut by the kill, or refused while the server was down). */
  unanswered: number;
  /** Answers that were neither 2xx nor cut: they point at a bug. */
  unexpected: string[];
}

export interface StartupKill {
  /** The load kill it followed. */
  afterRound: number;
  /** Milliseconds from the spawn to the SIGKILL. */
  killAtMs: number;
  /** Milliseconds from the spawn to the `database opened` line (undefined: none was seen before the kill). */
  openedAtMs?: number;
  /** The window it was drawn from: the shortest time from the line to the ready answer seen before it. */
  windowMs: number;
  /** The seeded fraction of the window: replayed by the seed, where the moment in ms depends on the machine. */
  fraction: number;
  /** Whether the kill came after the `database opened` line. */
  afterOpened: boolean;
  /** Whether the server had not answered ready yet when it was killed. */
  beforeReady: boolean;
  /**
   * Starts that answered ready before their drawn moment (faster than all before): each was killed at once, and a
   * new start killed in its place, with a new fraction halved once per miss, in the window the fastest start gives
   * (at most MAX_STARTUP_TRIES starts).
   */
  missed: number;
}

export interface CrashReport {
  seed: number;
  rounds: CrashRound[];
  startupKills: StartupKill[];
  totals: { references: number; generations: number; finalizations: number; learningJobs: number };
  /** Every broken promise found; empty when the run passed. */
  failures: string[];
}

interface Reference {
  id: number;
  wordCount: number;
}
interface Finalization {
  contentId: number;
  sha256: string;
  jobId: string | null;
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long a round waits for its first acknowledged write before its kill timer starts regardless. */
const FIRST_WRITE_WAIT_MS = 30_000;

/** How many starts a start-up kill tries before it settles for one that answered ready before its moment. */
const MAX_STARTUP_TRIES = 5;

const acknowledgedIn = (round: CrashRound) =>
  round.acknowledged.references + round.acknowledged.generations + round.acknowledged.finalizations;

/** Runs the whole crash sequence: `kills` kills, `kills + 1` starts, a verification after every start. */
export async function runCrash(options: CrashOptions): Promise<CrashReport> {
  const log = options.log ?? (() => {});
  const rand = prng(options.seed);
  // Its own stream: the load kills' moments of a seed are the same with start-up kills on or off.
  const startupRand = prng(options.seed ^ 0x5f3759df);
  const startupKillEvery = options.startupKillEvery ?? 0;
  const concurrency = options.concurrency ?? 6;
  const [killMin, killMax] = options.killAfterMs ?? [500, 4_000];
  const referenceWords = options.referenceWords ?? 2_000;
  const finalizeWords = options.finalizeWords ?? 5_000;
  const learningTimeoutMs = options.learningTimeoutMs ?? 120_000;

  const references: Reference[] = [];
  /** Acknowledged generations that no finalize has been sent for yet (a content is finalized at most once). */
  const finalizable: number[] = [];
  const generated = new Set<number>();
  const finalizations: Finalization[] = [];
  const rounds: CrashRound[] = [];
  const startupKills: StartupKill[] = [];
  /** The shortest time from a `database opened` line to the ready answer so far: a start-up kill's window. */
  let shortestOpenToReadyMs = Number.POSITIVE_INFINITY;
  const failures: string[] = [];
  let textSeed = options.seed * 7919;

  const verify = async (server: CrashServer, label: string) => {
    const db = openDb(options.dataDir, { readonly: true });
    try {
      const integrity = db.pragma("integrity_check", { simple: true });
      if (integrity !== "ok") failures.push(`${label}: integrity_check: ${String(integrity)}`);
      const refRows = new Map(
        (
          db.prepare("SELECT id, word_count FROM reference_materials").all() as { id: number; word_count: number }[]
        ).map((r) => [r.id, r.word_count]),
      );
      for (const r of references)
        if (refRows.get(r.id) !== r.wordCount)
          failures.push(
            `${label}: reference material ${r.id} acknowledged (201) but ${refRows.has(r.id) ? "changed" : "missing"}`,
          );
      const contents = new Map(
        (db.prepare("SELECT id, status FROM contents").all() as { id: number; status: string }[]).map((c) => [
          c.id,
          c.status,
        ]),
      );
      for (const id of generated) {
        const status = contents.get(id);
        if (status !== "generated" && status !== "finalized")
          failures.push(`${label}: content ${id} acknowledged (201) but ${status ? `is ${status}` : "missing"}`);
      }
      // The text as the server reads it: in the row, or in the version it names (sql/0010_text_version.sql).
      const rows = contentQueries(db);
      for (const f of finalizations) {
        const row = rows.byId(f.contentId);
        if (row?.status !== "finalized" || sha256(row.finalized_content ?? row.content) !== f.sha256)
          failures.push(`${label}: finalization of content ${f.contentId} acknowledged (200) but not stored`);
      }
    } finally {
      db.close();
    }
    // The learning jobs of acknowledged finalizations: present, and all succeeded within the timeout.
    const jobIds = finalizations.map((f) => f.jobId).filter((j): j is string => j !== null);
    const started = Date.now();
    // The deadline counts from the last job seen to end, not from the start: the learning thread runs only on time no
    // request wants (SCHED_IDLE), so on a machine kept busy by other work (a test run's other files) jobs wait, then
    // drain. Stuck jobs still fail the check.
    let progressAt = started;
    let pendingBefore = Number.POSITIVE_INFINITY;
    let last = new Map<string, string>();
    for (;;) {
      const db2 = openDb(options.dataDir, { readonly: true });
      try {
        last = new Map(
          (db2.prepare("SELECT id, status FROM learning_jobs").all() as { id: string; status: string }[]).map((j) => [
            j.id,
            j.status,
          ]),
        );
      } finally {
        db2.close();
      }
      const missing = jobIds.filter((j) => !last.has(j));
      const failed = jobIds.filter((j) => last.get(j) === "failed");
      const pending = jobIds.filter((j) => last.get(j) === "queued" || last.get(j) === "running");
      if (missing.length || failed.length) {
        failures.push(
          `${label}: learning jobs of acknowledged finalizations ${missing.length ? `missing: ${missing.slice(0, 5).join(", ")}` : ""}${failed.length ? ` failed: ${failed.slice(0, 5).join(", ")}` : ""}`,
        );
        break;
      }
      if (pending.length === 0) break;
      if (pending.length < pendingBefore) {
        pendingBefore = pending.length;
        progressAt = Date.now();
      }
      if (Date.now() - progressAt > learningTimeoutMs) {
        failures.push(
          `${label}: ${pending.length} learning jobs still not done, none ended in the last ${learningTimeoutMs} ms`,
        );
        break;
      }
      await sleep(250);
    }
    // The restarted server answers with what it stored.
    const sample = finalizations.at(-1);
    if (sample) {
      const res = await fetch(`${server.url}/api/v1/contents/${sample.contentId}`, {
        headers: { authorization: `Bearer ${options.key}` },
      });
      const body = (await res.json()) as { status?: string; finalized_content?: string };
      if (res.status !== 200 || body.status !== "finalized" || sha256(body.finalized_content ?? "") !== sample.sha256)
        failures.push(`${label}: GET /contents/${sample.contentId} after restart: ${res.status} ${body.status}`);
    }
    log(
      `${label}: ${failures.length === 0 ? "all checks ok" : `${failures.length} failures so far`}: ${references.length} references, ${generated.size} generations, ` +
        `${finalizations.length} finalizations stored, ${jobIds.length} learning jobs succeeded (waited ${Date.now() - started} ms)`,
    );
  };

  const writeLoad = (server: CrashServer, round: CrashRound) => {
    let stopped = false;
    const headers = { authorization: `Bearer ${options.key}`, "content-type": "application/json" };
    const post = async (path: string, body: unknown) => {
      try {
        const res = await fetch(`${server.url}/api/v1${path}`, {
          method: "POST",
          headers,
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        return { status: res.status, body: JSON.parse(text) };
      } catch {
        round.unanswered++;
        return undefined;
      }
    };
    const worker = async (n: number) => {
      const choose = prng(options.seed + round.round * 1000 + n);
      while (!stopped) {
        const r = choose();
        if (r < 0.35 && finalizable.length > 0) {
          const contentId = finalizable.splice(Math.floor(choose() * finalizable.length), 1)[0];
          const text = words(finalizeWords, textSeed++);
          const res = await post("/finalizeContent", {
            content_id: contentId,
            finalized_content: text,
            edit_seconds: 120,
          });
          if (!res) continue;
          if (res.status === 200) {
            finalizations.push({ contentId, sha256: sha256(text), jobId: res.body.learning_job_id ?? null });
            round.acknowledged.finalizations++;
          } else
            round.unexpected.push(`finalize ${contentId}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        } else if (r < 0.6) {
          const res = await post("/reference-materials", {
            title: `Reference ${textSeed}`,
            content: words(referenceWords, textSeed++),
            format: "text",
          });
          if (!res) continue;
          if (res.status === 201) {
            references.push({ id: res.body.id, wordCount: res.body.word_count });
            round.acknowledged.references++;
          } else round.unexpected.push(`reference: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        } else {
          const refs = references
            .slice(-6)
            .filter(() => choose() < 0.5)
            .slice(0, 3)
            .map((x) => x.id);
          const res = await post("/generate", {
            template_id: choose() < 0.5 ? 1 : 6,
            user_direction: `How the team plans the quarter, part ${textSeed++}`,
            reference_material_ids: refs,
            seed: Math.floor(choose() * 1e6),
          });
          if (!res) continue;
          if (res.status === 201) {
            generated.add(res.body.content_id);
            finalizable.push(res.body.content_id);
            round.acknowledged.generations++;
          } else round.unexpected.push(`generate: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        }
      }
    };
    const workers = Array.from({ length: concurrency }, (_, n) => worker(n));
    return {
      async stop() {
        stopped = true;
        await Promise.all(workers);
      },
    };
  };

  /** A start waited for to its first ready answer; its time from the `database opened` line feeds the window. */
  const startReady = async (): Promise<{ server: CrashServer; spawnedAt: number }> => {
    const starting = await options.start();
    let openedAt: number | undefined;
    starting.opened.then(
      (at) => {
        openedAt = at;
      },
      () => {},
    );
    const server = await starting.ready;
    if (openedAt === undefined) {
      await server.kill();
      throw new Error(
        "the server answered ready without a `database opened` line on its standard output: a build older than that line? (rebuild, or CRASH_FROM_SOURCE=1)",
      );
    }
    shortestOpenToReadyMs = Math.min(shortestOpenToReadyMs, performance.now() - openedAt);
    return { server, spawnedAt: starting.spawnedAt };
  };

  /** One try: spawns a server and kills it at a seeded fraction of the window after its `database opened` line. */
  const startupKillTry = async (afterRound: number, missed: number): Promise<StartupKill> => {
    const windowMs = Math.round(shortestOpenToReadyMs);
    // Each retry aims earlier (half the fraction of the one before): a start that beat its moment was faster than
    // the window, and a seed that draws late fractions would otherwise miss every try.
    const fraction = startupRand() / 2 ** missed;
    const starting = await options.start();
    let readyAt: number | undefined;
    // A start killed before its ready answer rejects `ready`; one that beat the timer resolves it.
    starting.ready.then(
      () => {
        readyAt = performance.now();
      },
      () => {},
    );
    let openedAt: number | undefined;
    try {
      openedAt = await starting.opened;
      await sleep(Math.max(0, openedAt + fraction * windowMs - performance.now()));
    } catch {
      // Exited or ready without the line: killed now, and said below.
    }
    const killedAt = performance.now();
    await starting.kill();
    // A start that answered ready first is the fastest seen: the next window is its time.
    if (openedAt !== undefined && readyAt !== undefined && readyAt <= killedAt)
      shortestOpenToReadyMs = Math.min(shortestOpenToReadyMs, readyAt - openedAt);
    const killAtMs = Math.round(killedAt - starting.spawnedAt);
    const openedAtMs = openedAt === undefined ? undefined : Math.round(openedAt - starting.spawnedAt);
    const afterOpened = openedAt !== undefined && openedAt <= killedAt;
    const beforeReady = readyAt === undefined || readyAt > killedAt;
    const phase = !afterOpened
      ? "before any `database opened` line"
      : beforeReady
        ? "after `database opened`, before the first ready answer"
        : `after the first ready answer (${Math.round((readyAt as number) - starting.spawnedAt)} ms after spawn): this start was faster`;
    log(
      `start-up kill after kill ${afterRound}: ${killAtMs} ms after spawn, ` +
        (openedAtMs === undefined
          ? ""
          : `${killAtMs - openedAtMs} ms after \`database opened\` (${openedAtMs} ms after spawn; fraction ${fraction.toFixed(3)} of ${windowMs} ms, the shortest opened-to-ready time so far), `) +
        phase,
    );
    return { afterRound, killAtMs, openedAtMs, windowMs, fraction, afterOpened, beforeReady, missed };
  };

  /**
   * Kills the next start between its `database opened` line and its first ready answer. A start faster than all
   * before it can answer ready before its moment: it is killed all the same and another start is tried.
   */
  const startupKill = async (afterRound: number) => {
    let kill = await startupKillTry(afterRound, 0);
    while (!(kill.afterOpened && kill.beforeReady) && kill.missed + 1 < MAX_STARTUP_TRIES)
      kill = await startupKillTry(afterRound, kill.missed + 1);
    startupKills.push(kill);
  };

  for (let round = 0; round <= options.kills; round++) {
    if (round > 0 && startupKillEvery > 0 && round % startupKillEvery === 0) await startupKill(round);
    const { server, spawnedAt } = await startReady();
    try {
      const afterStartupKill = startupKills.at(-1)?.afterRound === round;
      await verify(
        server,
        round === 0 ? "first start" : `restart after kill ${round}${afterStartupKill ? " and a start-up kill" : ""}`,
      );
      if (round === options.kills) {
        await server.stop();
        break;
      }
      const killAfterMs = Math.round(killMin + rand() * (killMax - killMin));
      const current: CrashRound = {
        round: round + 1,
        killAfterMs,
        acknowledged: { references: 0, generations: 0, finalizations: 0 },
        unanswered: 0,
        unexpected: [],
      };
      rounds.push(current);
      const writers = writeLoad(server, current);
      // The random moment counts from the round's first acknowledged write, not from the start: on a busy machine
      // the first answers (worker threads starting) can take longer than the whole window, and a round killed before
      // any write was acknowledged tests nothing.
      const waitFrom = Date.now();
      while (acknowledgedIn(current) === 0 && Date.now() - waitFrom < FIRST_WRITE_WAIT_MS) await sleep(20);
      const firstWriteMs = Date.now() - waitFrom;
      await sleep(killAfterMs);
      const killAtMs = Math.round(performance.now() - spawnedAt);
      await server.kill();
      await writers.stop();
      for (const u of current.unexpected.slice(0, 5)) failures.push(`round ${current.round}: unexpected answer: ${u}`);
      log(
        `kill ${current.round}/${options.kills} ${killAtMs} ms after spawn, ${killAfterMs} ms after the first acknowledged write (${firstWriteMs} ms into the load): acknowledged ${JSON.stringify(current.acknowledged)}, ${current.unanswered} unanswered`,
      );
    } catch (e) {
      await server.kill().catch(() => {});
      throw e;
    }
  }

  return {
    seed: options.seed,
    rounds,
    startupKills,
    totals: {
      references: references.length,
      generations: generated.size,
      finalizations: finalizations.length,
      learningJobs: finalizations.filter((f) => f.jobId).length,
    },
    failures,
  };
}
