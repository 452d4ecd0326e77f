/** Bugs the fuzz run found, kept as fixed cases (see openapi.fuzz.test.ts for how they were found). */
import { describe, expect, it } from "vitest";
import { requestFingerprint } from "../../src/http/idempotency.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

describe("fuzz regressions", () => {
  // Found by FUZZ_OP=createContent: the Idempotency-Key fingerprint walked the parsed body recursively, so a
  // body nested 5,000 deep or more overflowed the stack and answered 500 instead of the operation's answer.
  it.each([
    ["an array", `${"[".repeat(100_000)}${"]".repeat(100_000)}`],
    ["an object field", `{"title":"t","extra":${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}}`],
  ])("a body with %s nested 50,000+ deep and an Idempotency-Key never gets a 5xx", async (_what, raw) => {
    const h = makeHarness();
    const key = h.key();
    for (const path of ["/api/v1/contents", "/api/v1/generate"]) {
      const res = await h.send("POST", path, {
        auth: key,
        raw,
        headers: { "content-type": "application/json", "idempotency-key": "deep-1" },
      });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
      if (res.status >= 400) expectErrorBody(res, res.status);
    }
  });

  it("the request fingerprint takes any depth and still ignores key order", () => {
    const url = new URL("http://x/api/v1/contents");
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(requestFingerprint("POST", url, deep)).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint("POST", url, { a: [1, { b: 2, c: 3 }], d: null })).toBe(
      requestFingerprint("POST", url, { d: null, a: [1, { c: 3, b: 2 }] }),
    );
    expect(requestFingerprint("POST", url, { a: [1, 2] })).not.toBe(requestFingerprint("POST", url, { a: [2, 1] }));
  });
});
