/**
 * The dashboard's routes (src/routes/dashboard.ts) over the build in dist/dashboard (made by the global setup): the page
 * at / under its strict policy, its hashed files cached for a year, a missing file's coded 404, and the device page's
 * hand-over to the approval form.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DASHBOARD_CSP } from "../../src/routes/dashboard.js";
import { makeHarness } from "../helpers/harness.js";

const ASSETS = path.resolve(import.meta.dirname, "../../dist/dashboard/assets");

describe("the dashboard's routes", () => {
  it("answers the page at / with a policy allowing nothing but its own origin, and no frame around it", async () => {
    const h = makeHarness();
    const res = await h.send("GET", "/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).toContain("frame-ancestors 'none'");
    expect(DASHBOARD_CSP).not.toContain("unsafe-inline");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    // The page's addresses are relative, so that it works under a proxy's path prefix.
    const html = String(res.body);
    expect(html).toMatch(/src="\.\/assets\/index-[\w-]+\.js"/);
    expect(html).not.toMatch(/<script>(?!<)/);
  });

  it("answers each built file as immutable, by its hashed name, and 304 to a current copy", async () => {
    const h = makeHarness();
    const names = readdirSync(ASSETS);
    expect(names.some((n) => n.endsWith(".js"))).toBe(true);
    for (const name of names) {
      const res = await h.send("GET", `/assets/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const again = await h.send("GET", `/assets/${name}`, { headers: { "if-none-match": res.headers.get("etag")! } });
      expect(again.status).toBe(304);
    }
    const js = names.find((n) => n.endsWith(".js"))!;
    expect((await h.send("GET", `/assets/${js}`)).headers.get("content-type")).toBe("text/javascript; charset=utf-8");
  });

  it("answers a file it does not have with the coded 404", async () => {
    const h = makeHarness();
    const res = await h.send("GET", "/assets/index-nothere.js");
    expect(res.status).toBe(404);
    expect(res.body.details.error_code).toBe("route_not_found");
  });

  it("hands /device to the approval form, carrying the user code and nothing else", async () => {
    const h = makeHarness();
    const bare = await h.send("GET", "/device");
    expect(bare.status).toBe(303);
    expect(bare.headers.get("location")).toBe("./#/device");
    const res = await h.send("GET", "/device?user_code=BCDF-GHJK&next=https://evil.example");
    expect(res.headers.get("location")).toBe("./#/device?user_code=BCDF-GHJK");
  });
});
