/** The scope stage (src/http/pipeline/scope.ts): every method other than GET and HEAD needs write (DESIGN §3). */
import { describe, expect, it } from "vitest";
import { authenticateCaller } from "../../../src/http/pipeline/authenticate.js";
import { requireScope } from "../../../src/http/pipeline/scope.js";
import { makeHarness } from "../../helpers/harness.js";
import { refusalOf, routedOf, testRoute } from "../../helpers/pipeline.js";

async function caller(h: ReturnType<typeof makeHarness>, method: string, scopes: string[]) {
  const state = routedOf(testRoute({ method: method as "GET" }), "/api/v1/__stage", { auth: h.key({ scopes }) });
  await authenticateCaller(h.services)(state);
  return state;
}

describe("requireScope", () => {
  it("is 403 insufficient_scope for a read-only key's write, naming where to get a write key", async () => {
    const h = makeHarness({ config: { publicUrl: "https://api.example" } });
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const state = await caller(h, method, ["read"]);
      const refusal = await refusalOf(() => requireScope(h.services)(state));
      expect(refusal, method).toMatchObject({
        status: 403,
        code: "insufficient_scope",
        details: {
          required_scope: "write",
          current_scopes: ["read"],
          upgrade_action: expect.stringMatching(/^https:/),
        },
      });
    }
  });

  it("passes a read-only key's GET and HEAD, and a write key's write", async () => {
    const h = makeHarness();
    expect(requireScope(h.services)(await caller(h, "GET", ["read"]))).toBeUndefined();
    expect(requireScope(h.services)(await caller(h, "HEAD", ["read"]))).toBeUndefined();
    expect(requireScope(h.services)(await caller(h, "POST", ["read", "write"]))).toBeUndefined();
  });
});
