/**
 * The reduced crash run (`npm run crash` is the full one): three SIGKILLs at seeded random moments under a mixed
 * write load of generate, finalize and reference create, from source, and after the second of them one SIGKILL of
 * the next start between its `database opened` log line and its "listening on" line. After every restart each write answered 2xx
 * is stored, `PRAGMA integrity_check` is ok and the learning jobs of acknowledged finalizations succeed.
 * CRASH_SEED replays a run.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { OPENED_MARKER, runCrash } from "../../bench/lib/crash-core.js";
import { cli, ENTRY, tempDir, untilListening } from "../helpers/cli.js";

describe("crash under a write load", () => {
  it("keeps every acknowledged write, an intact database and the learning jobs across three kill -9 and one during start-up", async () => {
    const seed = process.env.CRASH_SEED ? Number(process.env.CRASH_SEED) : Math.floor(Math.random() * 2 ** 31);
    const dir = tempDir();
    expect(cli(["init", "--data-dir", dir]).status).toBe(0);
    cli(["accounts", "set-limits", "1", "--per-minute", "1000000", "--per-hour", "1000000", "--data-dir", dir]);
    const key = cli(["keys", "create", "--account", "1", "--name", "crash", "--json", "--data-dir", dir]).json().key;
    const lines: string[] = [];
    const report = await runCrash({
      seed,
      kills: 3,
      dataDir: dir,
      key,
      concurrency: 4,
      killAfterMs: [1_000, 2_500],
      referenceWords: 400,
      finalizeWords: 800,
      learningTimeoutMs: 60_000,
      log: (line) => lines.push(line),
      startupKillEvery: 2,
      async start() {
        // startServe's spawn, with the process in hand before it listens: a start-up kill comes before that.
        const child = spawn(process.execPath, [...ENTRY, "serve", "--data-dir", dir, "--port", "0", "--workers", "1"], {
          env: { ...process.env, NODE_OPTIONS: "" },
          stdio: ["ignore", "pipe", "pipe"],
        });
        const spawnedAt = performance.now();
        const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        let stdout = "";
        const opened = new Promise<number>((resolve, reject) => {
          const seen = (d: Buffer) => {
            stdout += d;
            if (!stdout.includes(OPENED_MARKER)) return;
            child.stdout.off("data", seen);
            resolve(performance.now());
          };
          child.stdout.on("data", seen);
          exited.then(() => reject(new Error("exited without a `database opened` line")));
        });
        const kill = async () => {
          child.kill("SIGKILL");
          await exited;
        };
        const ready = untilListening(child).then((server) => ({
          url: server.url,
          kill,
          async stop() {
            child.kill("SIGTERM");
            await exited;
          },
        }));
        // Ready without the line: the line is missing (startReady throws).
        ready.then(
          () => {},
          () => {},
        );
        return { spawnedAt, opened, kill, ready };
      },
    });
    const context = `seed ${seed} (replay: CRASH_SEED=${seed})\n${lines.join("\n")}`;
    expect(report.failures, context).toEqual([]);
    expect(report.rounds, context).toHaveLength(3);
    // The start after the second kill was killed too, and the start after that passed every check above.
    expect(
      report.startupKills.map((k) => k.afterRound),
      context,
    ).toEqual([2]);
    // It cut the part of the start it is meant to: after the database was opened, before the server was ready.
    expect(
      report.startupKills.map((k) => ({ afterOpened: k.afterOpened, beforeReady: k.beforeReady })),
      context,
    ).toEqual([{ afterOpened: true, beforeReady: true }]);
    // The load did write: writes were acknowledged before the kills.
    const t = report.totals;
    expect(t.references + t.generations + t.finalizations, context).toBeGreaterThan(0);
  }, 300_000);
});
