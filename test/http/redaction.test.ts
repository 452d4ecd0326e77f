import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/http/log.js";
import { makeHarness } from "../helpers/harness.js";

describe("secret redaction", () => {
  it("redacts keys and session tokens wherever they stand", () => {
    expect(redactSecrets("Bearer eyJhbGc.eyJzdWIi.sig-_x and svc_live_abc123")).toBe(
      "Bearer [redacted] and [redacted]",
    );
    expect(redactSecrets({ path: "/api/v1/contents/svc_live_AAAA" })).toEqual({ path: "/api/v1/contents/[redacted]" });
  });

  it("stays linear on hostile input (a run of token starts with no dots)", async () => {
    // Quadratic matching of this input blocked the event loop for minutes; linear matching finishes at once.
    expect(redactSecrets("eyJ".repeat(400_000)).length).toBe(1_200_000);
    const h = makeHarness();
    const res = await h.send("POST", "/api/v1/memories", {
      auth: h.key(),
      body: { kind: "eyJ".repeat(300_000), title: "t", content: "c" },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body).length).toBeLessThan(5_000);
  });
});
