import { describe, expect, it } from "vitest";
import { loggable } from "../../src/mcp/server.js";
import { redactSecrets } from "../../src/runtime/log.js";
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

  it("echoes a secret sent as a JSON-RPC id in the MCP answer, as JSON-RPC requires, and keeps it out of every log line", async () => {
    // Found by review: the SDK reported a response to a request it never sent, quoting it whole, id and result, into
    // the "mcp protocol error" log line.
    const h = makeHarness();
    const auth = h.key();
    const headers = { "mcp-protocol-version": "2025-06-18" };
    const apiKey = "svc_live_0123456789abcdefABCDEF";
    const password = "correct horse battery staple";
    const request = await h.send("POST", "/api/v1/mcp", {
      auth,
      headers,
      body: [
        { jsonrpc: "2.0", id: apiKey, method: "ping" },
        { jsonrpc: "2.0", id: password, method: "no/such/method" },
      ],
    });
    expect(request.status).toBe(200);
    expect(request.body.map((r: { id: string }) => r.id).sort()).toEqual([password, apiKey].sort());
    for (const id of [apiKey, password]) {
      const response = await h.send("POST", "/api/v1/mcp", {
        auth,
        headers,
        body: { jsonrpc: "2.0", id, result: { note: "answer to a request never sent" } },
      });
      expect(response.status).toBe(202);
    }
    const logged = h.logger.lines.map((l) => JSON.stringify(l)).join("\n");
    expect(logged).toMatch(/mcp protocol error/);
    expect(logged).toMatch(/\[id\]|\[message withheld\]/);
    for (const secret of [apiKey, password, "svc_live_", "answer to a request never sent"])
      expect(logged).not.toContain(secret);
  });

  it("replaces a JSON-RPC id where the SDK's report names it, leaving the same characters elsewhere alone", () => {
    const batch = [
      { jsonrpc: "2.0", id: "4", method: "ping" },
      { jsonrpc: "2.0", id: "e", method: "ping" },
    ];
    expect(loggable("Response handler missing for side-channeled request 4 (4 messages)", batch)).toBe(
      "Response handler missing for side-channeled request [id] (4 messages)",
    );
    expect(loggable("No connection established for request ID: e", batch)).toBe(
      "No connection established for request ID: [id]",
    );
    // An id that only begins a word there is not that id.
    expect(loggable("Request handler missing for request eve", batch)).toBe("Request handler missing for request eve");
    expect(loggable('Received a response for an unknown message ID: {"id":"4"}', batch)).toBe(
      "Received a response for an unknown message ID: [message withheld]",
    );
  });

  it("keeps a secret sent as an id out of the text wherever it stands", () => {
    const password = "correct horse battery staple";
    const batch = [{ jsonrpc: "2.0", id: password, method: "ping" }];
    expect(loggable(`handler missing for request ${password}`, batch)).toBe("handler missing for request [id]");
    expect(loggable(`Failed to send response: Error: no route to ${password}!`, batch)).toBe(
      "Failed to send response: Error: no route to [id]!",
    );
  });

  it("replaces an id holding `{` or `[` whole, not cut where a quoted message would begin", () => {
    const batch = [
      { jsonrpc: "2.0", id: "hunter2[x]", method: "ping" },
      { jsonrpc: "2.0", id: "a{long secret enough}", method: "ping" },
    ];
    expect(loggable("handler missing for request hunter2[x]", batch)).toBe("handler missing for request [id]");
    expect(loggable("handler missing for request hunter2[x] (2 messages)", batch)).toBe(
      "handler missing for request [id] (2 messages)",
    );
    expect(loggable("no route to a{long secret enough}: gone", batch)).toBe("no route to [id]: gone");
    // A quoted message after the id is still withheld.
    expect(loggable('unknown message ID: hunter2[x] {"id":"hunter2[x]"}', batch)).toBe(
      "unknown message ID: [id] [message withheld]",
    );
  });
});
