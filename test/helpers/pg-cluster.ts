/**
 * A throwaway PostgreSQL cluster of a test's own (initdb in a temporary directory, its own port and socket
 * directory), for the tests that stop and start the server: the shared server of CONTENT_SERVICE_TEST_DATABASE_URL
 * is never restarted. As root (this machine, CI) initdb and pg_ctl run as the postgres user, which owns the directory.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../../bench/lib/proc.js";

/**
 * Where initdb and pg_ctl are: CONTENT_SERVICE_PG_BIN, else the newest of Debian's /usr/lib/postgresql/<version>/bin
 * (postgresql-15 here and in CI).
 */
const BIN = process.env.CONTENT_SERVICE_PG_BIN ?? debianBin();

/** The bin folder of the newest PostgreSQL Debian installed, or its 15's path when there is none (then reported). */
function debianBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0] ?? "15";
  return path.join(root, newest, "bin");
}

/** Why no cluster can be made here, or undefined when one can. */
export function clusterUnavailable(): string | undefined {
  if (!existsSync(path.join(BIN, "initdb")) || !existsSync(path.join(BIN, "pg_ctl")))
    return `no initdb and pg_ctl in ${BIN} (install postgresql-15, or set CONTENT_SERVICE_PG_BIN)`;
  if (process.getuid?.() === 0 && spawnSync("id", ["-u", "postgres"]).status !== 0)
    return "running as root, and there is no postgres user to run initdb as (initdb refuses root)";
  return undefined;
}

/** A cluster started by startCluster: its URL (superuser postgres, trust on loopback) and its controls. */
export interface Cluster {
  url: string;
  /** pg_ctl stop -m fast: ends every connection, as a restart of the server does. */
  stop(): void;
  /** Starts it again on the same port and data. */
  start(): void;
  /** Whether it was last started, not stopped. */
  running(): boolean;
  /** Stops it (immediately) and deletes its directory. */
  destroy(): void;
}

/** Runs a PostgreSQL program, as the postgres user when this process is root; throws with its output on failure. */
function runPg(program: string, args: string[]): void {
  const command = path.join(BIN, program);
  const asPostgres = process.getuid?.() === 0;
  const r = asPostgres
    ? spawnSync("runuser", ["-u", "postgres", "--", command, ...args], { encoding: "utf8", timeout: 120_000 })
    : spawnSync(command, args, { encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0)
    throw new Error(`${program} ${args.join(" ")} failed (${r.status ?? r.signal}): ${r.stderr}${r.stdout}`);
}

/** initdb (UTF-8, C locale: byte order, as the service's schema expects) and start, on a free port. */
export async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cs-pg-cluster-"));
  if (process.getuid?.() === 0) {
    const chown = spawnSync("chown", ["postgres:postgres", dir], { encoding: "utf8" });
    if (chown.status !== 0) throw new Error(`chown postgres ${dir} failed: ${chown.stderr}`);
  }
  const data = path.join(dir, "data");
  runPg("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  let up = false;
  const start = () => {
    runPg("pg_ctl", ["-D", data, "-l", path.join(dir, "server.log"), "-o", options, "-w", "start"]);
    up = true;
  };
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      runPg("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      up = false;
    },
    start,
    running: () => up,
    destroy() {
      try {
        runPg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {
        // Already stopped (a test that failed between stop and start).
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
