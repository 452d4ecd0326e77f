/** Billing from a web session (spec §4.11): the four mutations, managed locally for every plan. */
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../src/routes/index.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, label, sessionOf, userIn } from "../helpers/http.js";

describe("billing", () => {
  const billing = ROUTES.filter((r) => r.path.startsWith("/api/v1/billing/"));

  it("has the four billing mutations of spec §4.11", () => {
    expect(billing.map((r) => r.path.split("/").at(-1)).sort()).toEqual([
      "cancel-subscription",
      "checkout-session",
      "portal-session",
      "refund-request",
    ]);
  });

  it.each(billing.map((def) => ({ name: label(def), def })))(
    "$name: 409 billing_managed_locally for a session (any plan), 401 for a key",
    async ({ def }) => {
      const h = makeHarness();
      const starter = h.accountWithPlan("starter");
      for (const token of [
        await sessionOf(h, "member@a.test"),
        await userIn(h, starter.id, "s@starter.test", "member"),
      ]) {
        for (const body of [undefined, {}, { plan: "agency" }]) {
          const res = await h.send(def.method, def.path, { auth: token, body });
          expectErrorBody(res, 409, "billing_managed_locally");
        }
      }
      expectErrorBody(await h.send(def.method, def.path, { auth: h.key(), body: {} }), 401);
      expect(h.services.store.accounts.byId(h.a.id)?.plan).toBe("business");
    },
  );
});
