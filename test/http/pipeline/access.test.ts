/** The access stage (src/http/pipeline/access.ts): operations reserved to web sessions and administrators. */
import { describe, expect, it } from "vitest";
import { requireAccess } from "../../../src/http/pipeline/access.js";
import { authenticateCaller, SESSION_ONLY_MESSAGE } from "../../../src/http/pipeline/authenticate.js";
import type { RouteDef } from "../../../src/http/route.js";
import { makeHarness } from "../../helpers/harness.js";
import { refusalOf, routedOf, testRoute } from "../../helpers/pipeline.js";

async function caller(h: ReturnType<typeof makeHarness>, auth: string, route: RouteDef) {
  const state = routedOf(route, "/api/v1/__stage", { auth });
  await authenticateCaller(h.services)(state);
  return state;
}

describe("requireAccess", () => {
  it("is 401 for a session-only or admin operation called with an API key", async () => {
    const h = makeHarness();
    for (const access of ["session", "admin"] as const) {
      const refusal = await refusalOf(async () => requireAccess(await caller(h, h.key(), testRoute({ access }))));
      expect(refusal).toMatchObject({ status: 401, code: "unauthorized", message: SESSION_ONLY_MESSAGE });
    }
  });

  it("is 403 admin_required for an administrator's operation called by a member", async () => {
    const h = makeHarness();
    const member = await h.login("member@a.test");
    const refusal = await refusalOf(async () => requireAccess(await caller(h, member, testRoute({ access: "admin" }))));
    expect(refusal).toMatchObject({ status: 403, code: "admin_required", details: { required_role: "admin" } });
  });

  it("passes an administrator's session, and a key on an operation open to keys", async () => {
    const h = makeHarness();
    const admin = await h.login("admin@a.test");
    await expect(caller(h, admin, testRoute({ access: "admin" })).then(requireAccess)).resolves.toBeUndefined();
    await expect(caller(h, h.key(), testRoute({ access: "any" })).then(requireAccess)).resolves.toBeUndefined();
  });
});
