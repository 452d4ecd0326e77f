/**
 * The test clock in the executable (`serve --sandbox`): the services' clock is the sandbox's, so the key the first
 * start prints expires after 91 days, answers carry the clock's time, and the periodic jobs run when an advance
 * passes their time.
 */
import { describe, expect, it } from "vitest";
import { startServe, tempDir } from "../helpers/cli.js";

const CLEAN = { CONTENT_SERVICE_SANDBOX: undefined, CONTENT_SERVICE_SANDBOX_ALLOW_REMOTE: undefined };

describe("serve --sandbox: the test clock", () => {
  it("expires the first key after 91 days, runs the jobs it passes, and stamps answers with its time", async () => {
    const server = await startServe(tempDir(), ["--sandbox"], CLEAN);
    try {
      for (let i = 0; i < 800 && !/svc_live_[0-9A-Za-z]{32}/.test(server.output()); i++)
        await new Promise((r) => setTimeout(r, 25));
      const key = /svc_live_[0-9A-Za-z]{32}/.exec(server.output())?.[0];
      const auth = { authorization: `Bearer ${key}` };
      const move = async (body: unknown) =>
        (
          await fetch(`${server.url}/_sandbox/clock`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
          })
        ).json();
      // The periodic jobs are scheduled a second after the start (jobs/schedules.ts).
      for (let i = 0; i < 100 && (await move({ advance: "PT10M" })).jobs_run.length === 0; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect((await move({ advance: "PT10M" })).jobs_run).toEqual(["learning-retry", "idempotency-purge"]);
      const clock = await move({ set: "2030-05-01T08:00:00Z", freeze: true });
      expect(clock).toMatchObject({ now: "2030-05-01T08:00:00.000Z", frozen: true });
      const me = await fetch(`${server.url}/api/v1/users/me`, { headers: auth });
      expect(me.status).toBe(401);
      expect((await me.json()).message).toMatch(/expired/);
      const journal = await (await fetch(`${server.url}/_sandbox/requests?path=/api/v1/users/me`)).json();
      expect(journal.data[0].time).toBe("2030-05-01T08:00:00.000Z");
      const read = await fetch(`${server.url}/_sandbox/clock`);
      expect((await read.json()).now).toBe("2030-05-01T08:00:00.000Z");
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });
});
