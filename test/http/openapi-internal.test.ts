/**
 * Spec §9.3: internal operations (the administrators' /api/v1/admin/*) are excluded from the public description (the
 * served one, `openapi`, /docs) and described with the rest in the internal one (`openapi --internal`, the
 * dashboard's types, the harness's contract check).
 */
import { describe, expect, it } from "vitest";
import { buildOpenApi } from "../../src/http/openapi.js";
import { ROUTES } from "../../src/routes/index.js";
import { DEFAULT_CONFIG } from "../../src/server/services.js";
import { cli } from "../helpers/cli.js";
import { makeHarness } from "../helpers/harness.js";

type Doc = { info: { description: string }; paths: Record<string, Record<string, { "x-stability": string }>> };
const operationsOf = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
const adminRoutes = ROUTES.filter((r) => r.path.startsWith("/api/v1/admin/"));

describe("the internal stability", () => {
  const publicDoc = buildOpenApi(ROUTES, DEFAULT_CONFIG) as unknown as Doc;
  const internalDoc = buildOpenApi(ROUTES, DEFAULT_CONFIG, { internal: true }) as unknown as Doc;

  it("marks every /admin/* route internal, and no other API route", () => {
    expect(adminRoutes.length).toBeGreaterThan(5);
    for (const r of ROUTES) expect(r.stability === "internal", r.path).toBe(r.path.startsWith("/api/v1/admin/"));
  });

  it("leaves the internal operations out of the public description", () => {
    expect(Object.keys(publicDoc.paths).filter((p) => p.includes("/admin/"))).toEqual([]);
    expect(publicDoc.info.description).not.toContain("internal");
  });

  it("describes the internal operations with the rest in the internal description", () => {
    const all = operationsOf(internalDoc);
    expect(all).toEqual(expect.arrayContaining(operationsOf(publicDoc)));
    const added = all.filter((op) => !operationsOf(publicDoc).includes(op));
    expect(added.sort()).toEqual(adminRoutes.map((r) => `${r.method} ${r.path}`).sort());
    for (const r of adminRoutes)
      expect(internalDoc.paths[r.path][r.method.toLowerCase()]["x-stability"]).toBe("internal");
    expect(internalDoc.info.description).toContain("internal");
  });

  it("serves the public description at /api/v1/openapi.json", async () => {
    const h = makeHarness();
    const res = await h.send("GET", "/api/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toEqual(Object.keys(publicDoc.paths));
  });

  it("prints the internal description with `openapi --internal`, the public one without", () => {
    const shown = cli(["openapi"]).json() as Doc;
    const internal = cli(["openapi", "--internal"]).json() as Doc;
    expect(Object.keys(shown.paths).some((p) => p.startsWith("/api/v1/admin/"))).toBe(false);
    expect(Object.keys(internal.paths)).toEqual(expect.arrayContaining(adminRoutes.map((r) => r.path)));
  });

  it("answers an internal operation without X-API-Stability, as its description says", async () => {
    const h = makeHarness();
    const token = await h.login("admin@a.test");
    const res = await h.send("GET", "/api/v1/admin/accounts", { auth: token });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-api-stability")).toBeNull();
  });
});
