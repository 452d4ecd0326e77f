/**
 * `npm run crash`: kills the server with SIGKILL at random moments under a mixed write load (generate, finalize,
 * reference create), ten times, and after every second of those kills the next start too, during its start-up; it
 * checks after every restart that each write answered 2xx is stored, that `PRAGMA integrity_check` is ok and that the learning jobs of acknowledged finalizations succeed.
 *
 * Runs dist/content-service when it is built (CRASH_FROM_SOURCE=1: the source tree through tsx). Environment:
 * CRASH_SEED (replays a run's kill moments and choices), CRASH_KILLS (10), CRASH_CONCURRENCY (6),
 * CRASH_KILL_MIN_MS / CRASH_KILL_MAX_MS (500 / 4,000), CRASH_STARTUP_KILL_EVERY (2: after every second kill, the
 * next start is killed too, between its `database opened` log line and its first ready answer; 0: never).
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { OPENED_MARKER, runCrash } from "./lib/crash-core.js";
import {
  executableRunner,
  haveExecutable,
  prepareDataDir,
  type Runner,
  sourceRunner,
  spawnServe,
  stop,
} from "./lib/proc.js";

const env = process.env;
const seed = env.CRASH_SEED ? Number(env.CRASH_SEED) : Math.floor(Math.random() * 2 ** 31);
const kills = Number(env.CRASH_KILLS ?? 10);
const startupKillEvery = Number(env.CRASH_STARTUP_KILL_EVERY ?? 2);
if (
  !Number.isInteger(seed) ||
  !Number.isInteger(kills) ||
  kills < 1 ||
  !Number.isInteger(startupKillEvery) ||
  startupKillEvery < 0
) {
  process.stderr.write(
    "crash: CRASH_SEED, CRASH_KILLS and CRASH_STARTUP_KILL_EVERY must be integers (CRASH_KILLS ≥ 1, CRASH_STARTUP_KILL_EVERY ≥ 0)\n",
  );
  process.exit(2);
}
const tmp = mkdtempSync(path.join(os.tmpdir(), "cs-crash-"));
const runner: Runner =
  env.CRASH_FROM_SOURCE !== "1" && haveExecutable() ? executableRunner(path.join(tmp, "asset-cache")) : sourceRunner();
const log = (s: string) => process.stdout.write(`[crash] ${s}\n`);
log(
  `seed ${seed} (replay: CRASH_SEED=${seed} npm run crash); ${kills} kills; running the ${runner.kind === "executable" ? "built executable dist/content-service" : "source tree (tsx src/main.ts)"}`,
);

const dataDir = path.join(tmp, "data");
const logFile = path.join(tmp, "server.log");

/**
 * Resolves with performance.now() when the server log gets OPENED_MARKER after byte `from` (the servers of a run
 * append to one file), polled every millisecond; rejects when `gone` resolves first.
 */
function watchOpened(from: number, gone: Promise<unknown>): Promise<number> {
  return new Promise((resolve, reject) => {
    const fd = openSync(logFile, "r");
    const buffer = Buffer.alloc(64 * 1024);
    let offset = from;
    let text = "";
    let settled = false;
    const poll = () => {
      if (settled) return;
      for (
        let n = readSync(fd, buffer, 0, buffer.length, offset);
        n > 0;
        n = readSync(fd, buffer, 0, buffer.length, offset)
      ) {
        offset += n;
        text += buffer.toString("latin1", 0, n);
      }
      if (text.includes(OPENED_MARKER)) settle(() => resolve(performance.now()));
    };
    const settle = (how: () => void) => {
      settled = true;
      clearInterval(timer);
      closeSync(fd);
      how();
    };
    const timer = setInterval(poll, 1);
    gone.then(() => {
      // What the server wrote before it got ready or went is read once more.
      poll();
      if (!settled) settle(() => reject(new Error("no `database opened` line before the server was ready or gone")));
    });
  });
}

/** A file's size, 0 when it is not there yet. */
function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

let code = 1;
try {
  const { key } = prepareDataDir(runner, dataDir);
  const started = Date.now();
  const report = await runCrash({
    seed,
    kills,
    dataDir,
    key,
    concurrency: Number(env.CRASH_CONCURRENCY ?? 6),
    killAfterMs: [Number(env.CRASH_KILL_MIN_MS ?? 500), Number(env.CRASH_KILL_MAX_MS ?? 4_000)],
    log,
    startupKillEvery,
    async start() {
      const logged = fileSize(logFile);
      const s = await spawnServe(runner, {
        dataDir,
        logFile,
        readyPath: "/api/v1/api-keys/current",
        headers: { authorization: `Bearer ${key}` },
        timeoutMs: 60_000,
      });
      const kill = async () => {
        s.child.kill("SIGKILL");
        await s.exited;
      };
      // Ready or gone without the line: the watch ends (a build older than the line never writes it).
      const gone = Promise.race([s.exited, s.ready.catch(() => undefined)]);
      return {
        spawnedAt: s.spawnedAt,
        opened: watchOpened(logged, gone),
        kill,
        ready: s.ready.then((served) => ({ url: served.url, kill, stop: () => stop(served) })),
      };
    },
  });
  const t = report.totals;
  log(
    `done in ${((Date.now() - started) / 1000).toFixed(1)} s: ${report.rounds.length} kills under load, ${report.startupKills.length} during start-up (${report.startupKills.filter((k) => k.afterOpened && k.beforeReady).length} between "database opened" and the first ready answer); acknowledged ${t.references} references, ` +
      `${t.generations} generations, ${t.finalizations} finalizations (${t.learningJobs} learning jobs)`,
  );
  if (report.failures.length === 0) {
    log(`PASS (seed ${seed})`);
    code = 0;
  } else {
    for (const f of report.failures) log(`FAIL: ${f}`);
    log(`FAIL (seed ${seed}; replay with CRASH_SEED=${seed}); server log kept at ${logFile}`);
  }
} catch (e) {
  log(`ERROR (seed ${seed}): ${(e as Error).stack ?? e}`);
} finally {
  if (code === 0) rmSync(tmp, { recursive: true, force: true });
}
process.exitCode = code;
