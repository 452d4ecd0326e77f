/** serve's start lines on standard error: where it listens, then where its dashboard (/) and API reference (/docs) are. */
import { describe, expect, it } from "vitest";
import { cli, startServe, tempDir } from "../helpers/cli.js";

async function bannerOf(extra: string[], dir = tempDir()): Promise<{ url: string; output: string }> {
  const server = await startServe(dir, extra);
  try {
    // The reference line follows the listening line in the same synchronous run: waiting for it is enough.
    for (let i = 0; i < 200 && !server.output().includes("API reference:"); i++)
      await new Promise((r) => setTimeout(r, 25));
    return { url: server.url, output: server.output() };
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
  }
}

describe("the start banner", () => {
  it("links the dashboard and the API reference page on the address it listens on", async () => {
    const { url, output } = await bannerOf([]);
    expect(output).toMatch(/content-service listening on \S+ \(data: .*\)\nDashboard: \S+\nAPI reference: \S+\n/);
    expect(output).toContain(`\nDashboard: ${url}/\n`);
    expect(output).toContain(`\nAPI reference: ${url}/docs\n`);
  });

  it("links it under --public-url, whose path the page is served at", async () => {
    const { output } = await bannerOf(["--public-url", "https://docs.example.test/content/"]);
    expect(output).toContain("\nDashboard: https://docs.example.test/content/\n");
    expect(output).toContain("\nAPI reference: https://docs.example.test/content/docs\n");
  });

  it("says when the first key expires, and the command that makes one that does not (which works)", async () => {
    const dir = tempDir();
    const { output } = await bannerOf([], dir);
    const expiry = /\n {2}it expires (\d{4}-\d{2}-\d{2}) \(90 days\)\n/.exec(output);
    expect(expiry, output).not.toBeNull();
    const days = (Date.parse(expiry![1]) - Date.parse(new Date().toISOString().slice(0, 10))) / 86_400_000;
    expect(days).toBeGreaterThanOrEqual(89);
    expect(days).toBeLessThanOrEqual(90);
    const command = /\n {2}a key that never expires: content-service (keys create .*--expires never)\n/.exec(output);
    expect(command, output).not.toBeNull();
    expect(command![1]).toBe(`keys create --data-dir ${dir} --account 1 --name NAME --expires never`);
    const made = cli([...command![1].replace("NAME", "forever").split(" "), "--json"]);
    expect(made.status, made.stderr).toBe(0);
    expect(made.json()).toMatchObject({ name: "forever", expires_at: null });
  });
});
