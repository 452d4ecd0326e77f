import { describe, expect, it } from "vitest";
import { cli, startServe, tempDir } from "../helpers/cli.js";

describe("learning jobs across a crash", () => {
  it("completes the learning job of every acknowledged finalization after kill -9 and a restart", async () => {
    const dir = tempDir();
    cli(["init", "--data-dir", dir]);
    cli(["accounts", "set-limits", "1", "--per-minute", "100000", "--per-hour", "1000000", "--data-dir", dir]);
    const key = cli(["keys", "create", "--account", "1", "--name", "crash", "--json", "--data-dir", dir]).json().key;
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    let server = await startServe(dir);
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${server.url}/api/v1/generate`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          template_id: 6,
          user_direction: `An email about utilizing offsite number ${i}`,
          seed: i,
        }),
      });
      expect(res.status).toBe(201);
      ids.push((await res.json()).content_id);
    }
    // Finalize all at once and kill the server as soon as the answers are in: jobs are queued or running.
    const answers = await Promise.all(
      ids.map((id) =>
        fetch(`${server.url}/api/v1/finalizeContent`, {
          method: "POST",
          headers,
          body: JSON.stringify({
            content_id: id,
            finalized_content: "We use the offsite to plan the year.",
            edit_seconds: 30,
          }),
        }).then((r) => r.json()),
      ),
    );
    server.child.kill("SIGKILL");
    await server.exited;
    const jobIds = answers.map((a) => a.learning_job_id as string);
    expect(jobIds.every((j) => typeof j === "string")).toBe(true);

    server = await startServe(dir);
    const started = Date.now();
    let statuses: string[] = [];
    while (Date.now() - started < 30_000) {
      statuses = await Promise.all(
        jobIds.map(
          async (j) => (await (await fetch(`${server.url}/api/v1/learning-jobs/${j}`, { headers })).json()).status,
        ),
      );
      if (statuses.every((s) => s === "succeeded")) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(statuses).toEqual(jobIds.map(() => "succeeded"));
    const profiles = await (await fetch(`${server.url}/api/v1/voice-profiles`, { headers })).json();
    expect(profiles.data[0].sample_count).toBe(jobIds.length);
    server.child.kill("SIGTERM");
    await server.exited;
  });
});
