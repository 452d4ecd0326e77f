/** The plan stage (src/http/pipeline/plan.ts): API access needs a Business or Agency plan (DESIGN §5). */
import { describe, expect, it } from "vitest";
import { authenticateCaller } from "../../../src/http/pipeline/authenticate.js";
import { requirePlan } from "../../../src/http/pipeline/plan.js";
import { limitRate } from "../../../src/http/pipeline/rate-limit.js";
import type { RouteDef } from "../../../src/http/route.js";
import { makeHarness } from "../../helpers/harness.js";
import { refusalOf, routedOf, testRoute } from "../../helpers/pipeline.js";

async function authenticated(h: ReturnType<typeof makeHarness>, auth: string, route: RouteDef = testRoute()) {
  const state = routedOf(route, "/api/v1/__stage", { auth });
  await authenticateCaller(h.services)(state);
  limitRate(h.services)(state);
  return state;
}

describe("requirePlan", () => {
  it("is 403 plan_upgrade_required for a key of a plan without API access", async () => {
    const h = makeHarness({ config: { publicUrl: "https://api.example" } });
    const starter = h.accountWithPlan("starter");
    const refusal = await refusalOf(async () => requirePlan(h.services)(await authenticated(h, starter.key)));
    expect(refusal).toMatchObject({
      status: 403,
      code: "plan_upgrade_required",
      details: { current_plan: "starter", upgrade_action: expect.stringMatching(/^https:\/\/api\.example\//) },
    });
  });

  it("passes a key of a plan with API access", async () => {
    const h = makeHarness();
    const state = await authenticated(h, h.key());
    expect(() => requirePlan(h.services)(state)).not.toThrow();
  });

  it("passes an anonymous request (public routes)", () => {
    const h = makeHarness();
    expect(() => requirePlan(h.services)(routedOf(testRoute({ access: "public" }), "/x"))).not.toThrow();
  });
});
