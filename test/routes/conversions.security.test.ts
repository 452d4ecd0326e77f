/** Conversions' access rules: another account's records are not found, a bound key stays in its workspace. */
import { describe, expect, it } from "vitest";
import { convert, draft } from "../helpers/conversions.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

describe("conversions: account isolation and workspace binding", () => {
  it("answers 404 for another account's content and conversions, and never lists them", async () => {
    const h = makeHarness();
    const keyA = h.key();
    const keyB = h.key({ account: h.b.id });
    const id = await draft(h, keyA, { content: "Secret plans." });
    const conv = await convert(h, keyA, { content_id: id, target_format: "html" });
    expectErrorBody(await convert(h, keyB, { content_id: id, target_format: "html" }), 404, "content_not_found");
    expectErrorBody(
      await h.send("GET", `/api/v1/conversions/${conv.body.id}`, { auth: keyB }),
      404,
      "conversion_not_found",
    );
    const listB = await h.send("GET", "/api/v1/conversions", { auth: keyB });
    expect(listB.body.data).toEqual([]);
    expectErrorBody(
      await h.send("GET", `/api/v1/conversions?workspace_id=${h.a.ws1}`, { auth: keyB }),
      404,
      "workspace_not_found",
    );
  });

  it("answers 403 workspace_mismatch when a bound key reaches another workspace's content or conversion", async () => {
    const h = makeHarness();
    const unbound = h.key();
    const bound = h.key({ workspaceId: h.a.ws2 });
    const id = await draft(h, unbound, { content: "In workspace one." });
    const conv = await convert(h, unbound, { content_id: id, target_format: "markdown" });

    const post = expectErrorBody(
      await convert(h, bound, { content_id: id, target_format: "html" }),
      403,
      "workspace_mismatch",
    );
    expect(post).toMatchObject({ bound_workspace_id: h.a.ws2, requested_workspace_id: h.a.ws1 });
    expectErrorBody(
      await h.send("GET", `/api/v1/conversions/${conv.body.id}`, { auth: bound }),
      403,
      "workspace_mismatch",
    );
    expectErrorBody(
      await h.send("GET", `/api/v1/conversions?workspace_id=${h.a.ws1}`, { auth: bound }),
      403,
      "workspace_mismatch",
    );
    // The bound key sees its own workspace's list (empty), never the other's records.
    expect((await h.send("GET", "/api/v1/conversions", { auth: bound })).body.data).toEqual([]);
    // An explicit workspace_id the content is not in: not found there.
    expectErrorBody(
      await convert(h, unbound, { content_id: id, target_format: "html", workspace_id: h.a.ws2 }),
      404,
      "content_not_found",
    );
    // Nothing was stored by the refused requests.
    expect((await h.send("GET", "/api/v1/conversions", { auth: unbound })).body.data).toHaveLength(1);
  });

  it("needs the write scope to convert, and the read scope to read", async () => {
    const h = makeHarness();
    const id = await draft(h, h.key(), { content: "Hello." });
    const read = h.key({ scopes: ["read"] });
    expectErrorBody(await convert(h, read, { content_id: id, target_format: "html" }), 403, "insufficient_scope");
    expect((await h.send("GET", "/api/v1/conversions", { auth: read })).status).toBe(200);
  });
});
