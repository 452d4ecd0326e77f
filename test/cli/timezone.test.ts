/**
 * `serve` without --timezone plans in the machine's time zone (DESIGN §7: is_overdue is "before today in the
 * server's time zone"). Two zones 25 hours apart never share a date: a day that is today at UTC-11 is already past
 * at UTC+14.
 */
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServe, tempDir } from "../helpers/cli.js";

const AHEAD = "Pacific/Kiritimati"; // UTC+14
const BEHIND = "Pacific/Pago_Pago"; // UTC-11

/** Today's date in a time zone, YYYY-MM-DD. */
const todayIn = (zone: string) => new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(new Date());

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill("SIGTERM");
  await server.exited;
}

describe("serve without --timezone", () => {
  it("takes the machine's time zone for is_overdue; --timezone and CONTENT_SERVICE_TIMEZONE replace it", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const clean = { CONTENT_SERVICE_TIMEZONE: undefined };

    const ahead = await startServe(dir, [], { ...clean, TZ: AHEAD });
    const key = /svc_live_[0-9A-Za-z]+/.exec(ahead.output())?.[0];
    expect(key, ahead.output()).toBeDefined();
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const created = await fetch(`${ahead.url}/api/v1/contents`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ title: "Plan" }),
    }).then((r) => r.json() as Promise<{ content_id: number }>);
    // Today where the day is youngest: in the zone 25 hours ahead it is already past.
    const day = todayIn(BEHIND);
    const planned = await fetch(`${ahead.url}/api/v1/contents/${created.content_id}/schedule`, {
      method: "PATCH",
      headers: auth,
      body: JSON.stringify({ scheduled_publish_at: day }),
    }).then((r) => r.json() as Promise<{ is_overdue: boolean; scheduled_publish_day: string }>);
    expect(planned).toMatchObject({ scheduled_publish_day: day, is_overdue: true });
    await stop(ahead);

    const behind = await startServe(dir, [], { ...clean, TZ: BEHIND });
    const read = await fetch(`${behind.url}/api/v1/contents/${created.content_id}`, { headers: auth }).then(
      (r) => r.json() as Promise<{ is_overdue: boolean }>,
    );
    expect(read.is_overdue).toBe(false);
    await stop(behind);

    // The machine's zone is ahead; the one given is behind, where the planned day is today.
    const readIn = async (extra: string[], env: Record<string, string | undefined>) => {
      const server = await startServe(dir, extra, { ...clean, TZ: AHEAD, ...env });
      const body = await fetch(`${server.url}/api/v1/contents/${created.content_id}`, { headers: auth }).then(
        (r) => r.json() as Promise<{ is_overdue: boolean }>,
      );
      await stop(server);
      return body.is_overdue;
    };
    expect(await readIn(["--timezone", BEHIND], {})).toBe(false);
    expect(await readIn([], { CONTENT_SERVICE_TIMEZONE: BEHIND })).toBe(false);
    expect(await readIn([], {})).toBe(true);
  });
});
