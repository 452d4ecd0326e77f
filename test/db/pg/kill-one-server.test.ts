/**
 * `kill -9` of one of two servers on one PostgreSQL database under a write load (issue 34 point 4): every write a
 * server answered 2xx was committed before the answer, so every one is read back through the survivor, whichever
 * server took it. The servers are child processes from source (`serve --database-url`), each with a data directory of
 * its own; the killed one gets no chance to flush or roll anything back.
 */
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ServerProcess, startServe, tempDir } from "../../helpers/cli.js";
import { describePostgres, type TestDatabase, testDatabase } from "../../helpers/postgres.js";
import { initialisedDatabase } from "../../helpers/postgres-servers.js";

/** Concurrent clients per server, each sending one write after another. */
const CLIENTS_PER_SERVER = 3;
/** Writes the doomed server must have acknowledged before it is killed: the kill lands mid-load. */
const ACKED_BEFORE_KILL = 30;
/** Writes the survivor acknowledges after the kill before the load stops. */
const ACKED_AFTER_KILL = 30;

/** Writes sent at most, so that a server that stops acknowledging fails the test instead of hanging it. */
const MAX_WRITES = 3000;

/** A write answered 2xx: which server took it, the id it answered and the text it was sent. */
interface Acked {
  server: number;
  id: number;
  content: string;
}

describePostgres("kill -9 of one of two servers under a write load", () => {
  let database: TestDatabase;
  let key: string;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    database = await testDatabase();
    key = initialisedDatabase(database.url);
    // Raised limits: each server counts its own buckets today, and the load must not be refused 429.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query("UPDATE accounts SET rate_per_minute = 1000000, rate_per_hour = 1000000");
    await client.end();
    for (let n = 0; n < 2; n++)
      servers.push(
        await startServe(tempDir(`cs-pg-kill-${n}-`), ["--host", "127.0.0.1", "--database-url", database.url]),
      );
  });

  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
    await Promise.all(servers.map((s) => s.exited));
    await database?.drop();
  });

  /** One write: the memory's id when the server answered 201, else undefined (refused, reset or killed). */
  async function write(server: ServerProcess, content: string): Promise<number | undefined> {
    try {
      const res = await fetch(`${server.url}/api/v1/memories`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ kind: "context", title: "Load", content }),
        signal: AbortSignal.timeout(20_000),
      });
      const body = (await res.json()) as { id?: number };
      return res.status === 201 ? body.id : undefined;
    } catch {
      return undefined;
    }
  }

  it("loses no write answered 2xx: the survivor reads every one back", async () => {
    const acked: Acked[] = [];
    let sent = 0;
    let killedAt: number | undefined;
    const ackedBy = (n: number) => acked.filter((a) => a.server === n).length;
    /** The doomed server's client: writes until the kill, which it makes once enough were acknowledged. */
    const doomed = async () => {
      while (killedAt === undefined && sent < MAX_WRITES) {
        const content = `write ${sent++} through server 0`;
        const id = await write(servers[0], content);
        if (id !== undefined) acked.push({ server: 0, id, content });
        if (killedAt === undefined && ackedBy(0) >= ACKED_BEFORE_KILL) {
          servers[0].child.kill("SIGKILL");
          killedAt = ackedBy(1);
        }
      }
    };
    /** The survivor's client: writes until it has acknowledged enough after the kill. */
    const surviving = async () => {
      while ((killedAt === undefined || ackedBy(1) < killedAt + ACKED_AFTER_KILL) && sent < MAX_WRITES) {
        const content = `write ${sent++} through server 1`;
        const id = await write(servers[1], content);
        if (id !== undefined) acked.push({ server: 1, id, content });
      }
    };
    await Promise.all(Array.from({ length: CLIENTS_PER_SERVER }, () => [doomed(), surviving()]).flat());
    expect((await servers[0].exited).signal).toBe("SIGKILL");
    expect(ackedBy(0)).toBeGreaterThanOrEqual(ACKED_BEFORE_KILL);

    const lost: Acked[] = [];
    for (const a of acked) {
      const res = await fetch(`${servers[1].url}/api/v1/memories/${a.id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await res.json()) as { content?: string };
      if (res.status !== 200 || body.content !== a.content) lost.push(a);
    }
    expect(lost).toEqual([]);
    // And the survivor still takes writes.
    expect(await write(servers[1], "after the kill")).toEqual(expect.any(Number));
  });
});
