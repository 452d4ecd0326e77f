/** The recheck stage (src/http/pipeline/recheck.ts): a write's credentials and workspace read again. */
import { describe, expect, it } from "vitest";
import { authenticateCaller } from "../../../src/http/pipeline/authenticate.js";
import { recheckWrite } from "../../../src/http/pipeline/recheck.js";
import { resolveQueryWorkspace } from "../../../src/http/pipeline/workspace.js";
import { makeHarness } from "../../helpers/harness.js";
import { keyRow } from "../../helpers/http.js";
import { LOOSE_BODY, refusalOf, routedOf, testRoute } from "../../helpers/pipeline.js";

const WRITE = testRoute({ method: "POST", workspace: "required", body: LOOSE_BODY });

describe("recheckWrite", () => {
  it("is 401 for a write whose key was revoked after it authenticated", async () => {
    const h = makeHarness();
    const key = h.key();
    const state = routedOf(WRITE, "/api/v1/__stage", { auth: key, body: {} });
    await authenticateCaller(h.services)(state);
    state.hasBody = true;
    h.services.store.apiKeys.revoke(keyRow(h, key).id, new Date(h.clock.now()).toISOString());
    expect(await refusalOf(() => recheckWrite(h.services)(state))).toMatchObject({ status: 401 });
  });

  it("is 404 workspace_not_found for a write whose workspace was deleted meanwhile", async () => {
    const h = makeHarness();
    const state = routedOf(WRITE, `/api/v1/__stage?workspace_id=${h.a.ws2}`, { auth: h.key() });
    await authenticateCaller(h.services)(state);
    resolveQueryWorkspace(h.services)(state);
    h.services.store.workspaces.remove(h.a.ws2);
    expect(await refusalOf(() => recheckWrite(h.services)(state))).toMatchObject({
      status: 404,
      code: "workspace_not_found",
    });
  });

  it("passes a read, whatever happened since", async () => {
    const h = makeHarness();
    const state = routedOf(WRITE, `/api/v1/__stage?workspace_id=${h.a.ws2}`, { auth: h.key(), method: "GET" });
    await authenticateCaller(h.services)(state);
    resolveQueryWorkspace(h.services)(state);
    h.services.store.workspaces.remove(h.a.ws2);
    expect(recheckWrite(h.services)(state)).toBeUndefined();
  });
});
