/** The one rule for text about the model server that callers see: the server's own words and the model server's. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shownServerText } from "../../../src/domain/generation/llm.js";
import { type FakeLlm, startFakeLlm } from "../../helpers/fake-llm.js";
import { makeHarness } from "../../helpers/harness.js";

describe("shownServerText", () => {
  it.each([
    ["a URL's query and fragment", "see http://gw/v1/chat?key=abc123#frag now", "see http://gw/v1/chat now"],
    ["a URL's user and password", "at https://ops:hunter2@gw.example/v1 down", "at https://gw.example/v1 down"],
    ["an Authorization header", "Authorization: Bearer sk-abc.def", "Authorization: [redacted]"],
    ["a quoted api-key field", '{"api-key": "k-999", "x": 1}', '{"api-key": "[redacted]", "x": 1}'],
    ["an api_key parameter", "bad api_key=zz9&model=m", "bad api_key=[redacted]&model=m"],
    ["an x-api-key header", "x-api-key: abc", "x-api-key: [redacted]"],
    ["a bearer value alone", "token Bearer abc.def-ghi rejected", "token Bearer [redacted] rejected"],
    ["a bare path's query", "POST /v1/chat/completions?key=AIza99 failed", "POST /v1/chat/completions failed"],
    ["a quoted token field", '{"token":"t-1","x":1}', '{"token":"[redacted]","x":1}'],
    ["an X-Auth-Token header", "X-Auth-Token: s3cr3t", "X-Auth-Token: [redacted]"],
    ["an Azure subscription key", "Ocp-Apim-Subscription-Key: abc", "Ocp-Apim-Subscription-Key: [redacted]"],
    ["a cookie", "Cookie: sid=abc", "Cookie: [redacted]"],
    [
      "a client secret and a password",
      "client_secret=cs1 password=pw1",
      "client_secret=[redacted] password=[redacted]",
    ],
    ["an encoded bearer value", "auth=Bearer%20sk-abc end", "auth=Bearer [redacted] end"],
  ])("removes %s", (_what, text, shown) => {
    expect(shownServerText(text)).toBe(shown);
  });

  it("leaves text without credentials as it is", () => {
    const text = "CUDA out of memory at layer 3: try a smaller batch (http://gw/v1/chat).";
    expect(shownServerText(text)).toBe(text);
  });
});

describe("a model server's error text", () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(() => fake.close());

  it("reaches the caller redacted as the server's own text is", async () => {
    const baseUrl = `${fake.url}/?token=gw-secret-1`;
    const h = makeHarness({ config: { llm: { baseUrl, model: "leaky", apiKey: "sk-local-test", timeoutMs: 2_000 } } });
    const res = await h.send("POST", "/api/v1/generate", {
      auth: h.key({ workspaceId: h.a.ws1 }),
      body: { template_id: 1, user_direction: "x", model: "leaky" },
    });
    expect(res.status).toBe(502);
    expect(res.body.details.error_code).toBe("upstream_error");
    expect(res.body.message).toContain("denied for http://");
    for (const secret of ["gw-secret-1", "sk-local-test", "hunter2", "tok_123", "token="])
      expect(res.body.message).not.toContain(secret);
    expect(res.body.message).toContain("Authorization: [redacted]");
  });
});
