/**
 * Paths are matched after decoding percent-encoded unreserved characters (RFC 3986 §6.2.2.2): a client or proxy
 * that encodes `_` or a digit reaches the same record. Other escapes stay as sent.
 */
import { describe, expect, it } from "vitest";
import { decodeUnreserved } from "../../src/http/pipeline/url.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

describe("decodeUnreserved", () => {
  it("decodes letters, digits, -._~ and leaves reserved and other characters encoded", () => {
    expect(decodeUnreserved("/a/ws%5Fx%2d%2E%7e%41%7A%30")).toBe("/a/ws_x-.~Az0");
    expect(decodeUnreserved("/a/%2F%20%25%3F%23%C3%A9")).toBe("/a/%2F%20%25%3F%23%C3%A9");
    expect(decodeUnreserved("/a/%zz%4")).toBe("/a/%zz%4");
    expect(decodeUnreserved("/plain")).toBe("/plain");
  });
});

describe("an encoded path over HTTP", () => {
  it("reaches the record its decoded path names, in path parameters and fixed segments alike", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    const created = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "Encoded" } });
    expect(created.status).toBe(201);
    const id = String(created.body.content_id);
    const encodedId = [...id].map((d) => `%${d.charCodeAt(0).toString(16)}`).join("");
    const byId = await h.send("GET", `/api/v1/contents/${encodedId}`, { auth: key });
    expect(byId.status, JSON.stringify(byId.body)).toBe(200);
    expect(byId.body.title).toBe("Encoded");

    const ws = await h.send("GET", `/api/v1/workspaces/${h.a.ws1.replace("_", "%5F")}`, { auth: key });
    expect(ws.status, JSON.stringify(ws.body)).toBe(200);
    expect(ws.body.id).toBe(h.a.ws1);

    expect((await h.send("GET", "/api/v1/api%2Dkeys/current", { auth: key })).status).toBe(200);
    // An encoded slash is not a separator: no route.
    expectErrorBody(await h.send("GET", "/api/v1/contents%2F1", { auth: key }), 404, "route_not_found");
  });

  it("is the decoded path for the Idempotency-Key fingerprint and in the request log, redaction included", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    const headers = { "idempotency-key": "encoded-path" };
    const first = await h.send("POST", "/api/v1/cont%65nts", { auth: key, body: { title: "Once" }, headers });
    expect(first.status).toBe(201);
    const again = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "Once" }, headers });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.content_id).toBe(first.body.content_id);

    const secret = h.key();
    await h.send("GET", `/api/v1/contents/${secret.replace("_", "%5F")}`, { auth: key });
    const paths = h.logger.lines.map((l) => String(l.path));
    expect(paths).toContain("/api/v1/contents");
    expect(paths.join("\n")).not.toContain(secret.slice("svc_live_".length));
  });
});
