/** serve's start lines on standard error: where it listens, then where its dashboard (/) and API reference (/docs) are. */
import { describe, expect, it } from "vitest";
import { startServe, tempDir } from "../helpers/cli.js";

async function bannerOf(extra: string[]): Promise<{ url: string; output: string }> {
  const server = await startServe(tempDir(), extra);
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
});
