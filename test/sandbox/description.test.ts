/**
 * GET /_sandbox/openapi.json (src/sandbox/description.ts): the sandbox's operations, with their schemas, in a
 * description of their own, only in sandbox mode; the API's description still lists none of them.
 */
import { describe, expect, it } from "vitest";
import { makeSandboxHarness } from "../helpers/sandbox.js";

describe("the sandbox's description", () => {
  it("describes every /_sandbox/ operation, with the fault rule's schema, tagged Sandbox", async () => {
    const h = makeSandboxHarness();
    const res = await h.sendSandbox("GET", "/_sandbox/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe("3.1.0");
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops as object).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const routes = h.sandbox.routes.map((r) => `${r.method} ${r.path}`);
    expect(operations.sort()).toEqual(routes.sort());
    expect(doc.tags.map((t: { name: string }) => t.name)).toEqual(["Sandbox"]);
    const add = doc.paths["/_sandbox/faults"].post;
    expect(add.security).toEqual([]);
    expect(add.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/SandboxAddFaultRequest");
    const schema = JSON.stringify(doc.components.schemas.SandboxAddFaultRequest);
    for (const field of ["match", "answer", "times", "probability", "slow", "garbage"]) expect(schema).toContain(field);
  });

  it("is not in the API's description, and not served without sandbox mode", async () => {
    const h = makeSandboxHarness();
    const api = await h.sendSandbox("GET", "/api/v1/openapi.json");
    expect(Object.keys(api.body.paths).filter((p) => p.startsWith("/_sandbox/"))).toEqual([]);
    expect((await h.send("GET", "/_sandbox/openapi.json")).status).toBe(404);
  });
});
