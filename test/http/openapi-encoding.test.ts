/**
 * GET /api/v1/openapi.json over real sockets (src/routes/system.ts, src/http/node.ts): 3 MB of JSON, sent
 * gzip-encoded to a client whose Accept-Encoding takes gzip, with a Content-Length of the bytes sent, Vary and an
 * ETag per encoding (If-None-Match answers 304); HEAD with the same headers.
 */
import http from "node:http";
import type net from "node:net";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptsGzip } from "../../src/http/fixed-body.js";
import { nodeListener } from "../../src/http/node.js";
import { checkContract, type Harness, makeHarness } from "../helpers/harness.js";

let h: Harness;
let server: http.Server;
let port: number;

beforeAll(async () => {
  h = makeHarness();
  server = http.createServer(nodeListener(h.app));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Buffer;
}

/** The description as the server sends it: bytes undecoded (node's http client decodes nothing). */
function get(headers: Record<string, string> = {}, method = "GET"): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(`http://127.0.0.1:${port}/api/v1/openapi.json`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("GET /api/v1/openapi.json encodings", () => {
  it("is gzip-encoded when Accept-Encoding takes gzip: the bytes decode to the plain answer's JSON", async () => {
    const plain = await get();
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toBe("Accept-Encoding");
    expect(Number(plain.headers["content-length"])).toBe(plain.bytes.byteLength);
    const doc = JSON.parse(plain.bytes.toString("utf8"));
    expect(doc.openapi).toBe("3.1.0");

    for (const accept of ["gzip", "gzip, deflate, br", "br;q=1.0, gzip;q=0.8", "*", "identity;q=0.5, *"]) {
      const zipped = await get({ "accept-encoding": accept });
      expect(zipped.status, accept).toBe(200);
      expect(zipped.headers["content-encoding"], accept).toBe("gzip");
      expect(zipped.headers["content-type"], accept).toBe("application/json; charset=utf-8");
      expect(zipped.headers.vary, accept).toBe("Accept-Encoding");
      expect(Number(zipped.headers["content-length"]), accept).toBe(zipped.bytes.byteLength);
      expect(zipped.bytes.byteLength, accept).toBeLessThan(plain.bytes.byteLength / 5);
      expect(JSON.parse(gunzipSync(zipped.bytes).toString("utf8")), accept).toEqual(doc);
    }
  });

  it("is plain when gzip is refused (q=0), not offered, or identity is preferred", async () => {
    for (const accept of [
      "gzip;q=0",
      "*, gzip;q=0",
      "identity",
      "br, deflate",
      "*;q=0, identity",
      "gzip;q=0.5, identity",
    ]) {
      const answer = await get({ "accept-encoding": accept });
      expect(answer.status, accept).toBe(200);
      expect(answer.headers["content-encoding"], accept).toBeUndefined();
      expect(answer.headers.vary, accept).toBe("Accept-Encoding");
      expect(JSON.parse(answer.bytes.toString("utf8")).openapi, accept).toBe("3.1.0");
    }
  });

  it("gives each encoding its own ETag, and answers 304 to the ETag of the encoding it would send", async () => {
    const plain = await get();
    const zipped = await get({ "accept-encoding": "gzip" });
    const etag = plain.headers.etag!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(zipped.headers.etag).toBe(`${etag.slice(0, -1)}-gzip"`);

    const notModified = await get({ "accept-encoding": "gzip", "if-none-match": zipped.headers.etag! });
    expect(notModified.status).toBe(304);
    expect(notModified.bytes.byteLength).toBe(0);
    expect(notModified.headers.etag).toBe(zipped.headers.etag);
    expect(notModified.headers.vary).toBe("Accept-Encoding");
    expect((await get({ "if-none-match": `W/${etag}` })).status).toBe(304);
    expect((await get({ "if-none-match": "*" })).status).toBe(304);
    // The other encoding's ETag names other bytes: the client gets the ones it asked for.
    const other = await get({ "accept-encoding": "gzip", "if-none-match": etag });
    expect(other.status).toBe(200);
    expect(other.headers["content-encoding"]).toBe("gzip");
    expect((await get({ "if-none-match": zipped.headers.etag! })).status).toBe(200);
  });

  it("answers HEAD with the GET's headers and length, and no body", async () => {
    for (const headers of [{}, { "accept-encoding": "gzip" }] as Record<string, string>[]) {
      const got = await get(headers);
      const head = await get(headers, "HEAD");
      expect(head.status).toBe(200);
      expect(head.bytes.byteLength).toBe(0);
      for (const name of ["content-length", "content-encoding", "content-type", "etag", "vary"])
        expect(head.headers[name], name).toBe(got.headers[name]);
    }
  });

  it("matches its description, gzip-encoded or not", async () => {
    for (const headers of [{}, { "accept-encoding": "gzip" }] as Record<string, string>[]) {
      const res = await h.app.handle(new Request("http://test.local/api/v1/openapi.json", { headers }));
      await checkContract("GET", "/api/v1/openapi.json", res);
      const etag = res.headers.get("etag")!;
      const again = await h.app.handle(
        new Request("http://test.local/api/v1/openapi.json", { headers: { ...headers, "if-none-match": etag } }),
      );
      expect(again.status).toBe(304);
      await checkContract("GET", "/api/v1/openapi.json", again);
    }
  });
});

describe("acceptsGzip", () => {
  it("reads q-values (RFC 9110 §12.5.3)", () => {
    expect(acceptsGzip(null)).toBe(false);
    expect(acceptsGzip("")).toBe(false);
    expect(acceptsGzip("GZIP")).toBe(true);
    expect(acceptsGzip("x-gzip")).toBe(true);
    expect(acceptsGzip("gzip;q=0")).toBe(false);
    expect(acceptsGzip("gzip; q=0.000")).toBe(false);
    expect(acceptsGzip("gzip;q=0.001")).toBe(true);
    expect(acceptsGzip("*")).toBe(true);
    expect(acceptsGzip("*;q=0")).toBe(false);
    expect(acceptsGzip("*, gzip;q=0")).toBe(false);
    expect(acceptsGzip("identity")).toBe(false);
    expect(acceptsGzip("identity;q=0, gzip")).toBe(true);
    expect(acceptsGzip("identity, gzip;q=0.5")).toBe(false);
    expect(acceptsGzip("deflate, br")).toBe(false);
  });
});
