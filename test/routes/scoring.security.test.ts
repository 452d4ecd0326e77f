/**
 * Scoring's access rules: another account's profiles and contents are not found, a bound key stays in its workspace.
 */
import { describe, expect, it } from "vitest";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";
import { profile, score } from "../helpers/scoring.js";

describe("scoring: account isolation and workspace binding", () => {
  it("answers 404 for another account's voice profile or content", async () => {
    const h = makeHarness();
    profile(h, h.b.id, h.b.ws, "vp_accountb1");
    const keyA = h.key();
    const keyB = h.key({ account: h.b.id });
    expectErrorBody(
      await score(h, keyA, { text: "Hello there.", voice_profile_id: "vp_accountb1" }),
      404,
      "voice_profile_not_found",
    );
    expectErrorBody(
      await score(h, keyA, { text: "Hello there.", voice_profile_id: "vp_missing" }),
      404,
      "voice_profile_not_found",
    );
    const content = await h.send("POST", "/api/v1/contents", { auth: keyA, body: { content: "Account A text." } });
    expectErrorBody(await score(h, keyB, { content_id: content.body.content_id }), 404, "content_not_found");
    expectErrorBody(await score(h, keyB, { text: "Hello there.", workspace_id: h.a.ws1 }), 404, "workspace_not_found");
  });

  it("answers 403 workspace_mismatch when a bound key scores content of another workspace", async () => {
    const h = makeHarness();
    const content = await h.send("POST", "/api/v1/contents", {
      auth: h.key(),
      body: { content: "Workspace one text.", workspace_id: h.a.ws1 },
    });
    const id = content.body.content_id;
    const bound = h.key({ workspaceId: h.a.ws2 });
    const details = expectErrorBody(await score(h, bound, { content_id: id }), 403, "workspace_mismatch");
    expect(details).toMatchObject({ bound_workspace_id: h.a.ws2, requested_workspace_id: h.a.ws1 });
    expectErrorBody(await score(h, bound, { content_id: id, workspace_id: h.a.ws1 }), 403, "workspace_mismatch");
    // Unbound: a workspace_id the content is not in is a 404; its own workspace is fine.
    const unbound = h.key();
    expectErrorBody(await score(h, unbound, { content_id: id, workspace_id: h.a.ws2 }), 404, "content_not_found");
    expect((await score(h, unbound, { content_id: id, workspace_id: h.a.ws1 })).status).toBe(200);
    expect((await score(h, h.key({ workspaceId: h.a.ws1 }), { content_id: id })).status).toBe(200);
    // An empty workspace_id is no workspace id: 400, as on the workspace-aware operations (it was 403 naming "").
    for (const body of [
      { content_id: id, workspace_id: "" },
      { text: "Hello there.", workspace_id: "" },
    ]) {
      const empty = expectErrorBody(await score(h, bound, body), 400, "validation_failed");
      expect(empty.issues).toEqual([expect.objectContaining({ path: "body.workspace_id" })]);
    }
  });

  it("needs the write scope", async () => {
    const h = makeHarness();
    expectErrorBody(await score(h, h.key({ scopes: ["read"] }), { text: "Hi." }), 403, "insufficient_scope");
  });
});
