/** The workspace stages (src/http/pipeline/workspace.ts): spec §5's workspace of a workspace-aware request. */
import { describe, expect, it } from "vitest";
import { authenticateCaller } from "../../../src/http/pipeline/authenticate.js";
import { resolveBodyWorkspace, resolveQueryWorkspace } from "../../../src/http/pipeline/workspace.js";
import { makeHarness } from "../../helpers/harness.js";
import { LOOSE_BODY, refusalOf, routedOf, testRoute } from "../../helpers/pipeline.js";

const ROUTE = testRoute({ method: "POST", workspace: "required", body: LOOSE_BODY });

async function request(h: ReturnType<typeof makeHarness>, query: string, auth: string, body?: unknown) {
  const state = routedOf(ROUTE, `/api/v1/__stage${query}`, { auth, body });
  await authenticateCaller(h.services)(state);
  state.body = body;
  return state;
}

describe("resolveQueryWorkspace", () => {
  it("settles the workspace the query names", async () => {
    const h = makeHarness();
    const state = await request(h, `?workspace_id=${h.a.ws2}`, h.key());
    resolveQueryWorkspace(h.services)(state);
    expect(state.workspace?.id).toBe(h.a.ws2);
    expect(state.queryWorkspaceId).toBe(h.a.ws2);
  });

  it("is 400 validation_failed for an empty or repeated workspace_id", async () => {
    const h = makeHarness();
    for (const query of ["?workspace_id=", `?workspace_id=${h.a.ws1}&workspace_id=${h.a.ws2}`]) {
      const state = await request(h, query, h.key());
      const refusal = await refusalOf(() => resolveQueryWorkspace(h.services)(state));
      expect(refusal, query).toMatchObject({ status: 400, code: "validation_failed" });
    }
  });

  it("is 403 workspace_mismatch for a key bound elsewhere, 404 for another account's workspace", async () => {
    const h = makeHarness();
    const bound = await request(h, `?workspace_id=${h.a.ws2}`, h.key({ workspaceId: h.a.ws1 }));
    expect(await refusalOf(() => resolveQueryWorkspace(h.services)(bound))).toMatchObject({
      status: 403,
      code: "workspace_mismatch",
      details: { bound_workspace_id: h.a.ws1, requested_workspace_id: h.a.ws2 },
    });
    const foreign = await request(h, `?workspace_id=${h.b.ws}`, h.key());
    expect(await refusalOf(() => resolveQueryWorkspace(h.services)(foreign))).toMatchObject({ status: 404 });
  });

  it("leaves a request without workspace_id to the body's stage", async () => {
    const h = makeHarness();
    const state = await request(h, "", h.key());
    resolveQueryWorkspace(h.services)(state);
    expect(state.workspace).toBeUndefined();
    expect(state.queryWorkspaceId).toBeNull();
  });
});

describe("resolveBodyWorkspace", () => {
  it("settles the body's workspace_id, else the account's default", async () => {
    const h = makeHarness();
    const named = await request(h, "", h.key(), { workspace_id: h.a.ws2 });
    resolveBodyWorkspace(h.services)(named);
    expect(named.workspace?.id).toBe(h.a.ws2);
    const unnamed = await request(h, "", h.key(), {});
    resolveBodyWorkspace(h.services)(unnamed);
    expect(unnamed.workspace?.id).toBe(h.a.ws1);
  });

  it("is 400 validation_failed when the body's workspace_id differs from the query's", async () => {
    const h = makeHarness();
    const state = await request(h, `?workspace_id=${h.a.ws1}`, h.key(), { workspace_id: h.a.ws2 });
    resolveQueryWorkspace(h.services)(state);
    const refusal = await refusalOf(() => resolveBodyWorkspace(h.services)(state));
    expect(refusal).toMatchObject({ status: 400, code: "validation_failed" });
    expect((refusal.details.issues as { path: string }[]).map((i) => i.path)).toEqual([
      "query.workspace_id",
      "body.workspace_id",
    ]);
  });

  it("is 400 validation_failed for a workspace_id that is not a string", async () => {
    const h = makeHarness();
    const state = await request(h, "", h.key(), { workspace_id: 7 });
    expect(await refusalOf(() => resolveBodyWorkspace(h.services)(state))).toMatchObject({
      status: 400,
      code: "validation_failed",
    });
  });
});
