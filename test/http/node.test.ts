/** The pipeline on node:http (src/http/node.ts): what the server writes to real sockets. */
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/http/app.js";
import { JSON_BODY_LIMIT } from "../../src/http/body.js";
import { clientErrorListener, nodeListener } from "../../src/http/node.js";
import { type Harness, makeHarness } from "../helpers/harness.js";
import { openRequest } from "../helpers/http-client.js";

let h: Harness;
let server: http.Server;
let port: number;
let key: string;

beforeAll(async () => {
  h = makeHarness();
  key = h.key();
  // Timeouts are checked every 200 ms here (node's default: every 30 s).
  server = http.createServer({ connectionsCheckingInterval: 200 }, nodeListener(h.app));
  server.on("clientError", clientErrorListener(h.app));
  server.headersTimeout = 1_000;
  server.requestTimeout = 1_500;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Sends raw bytes on a new connection and returns everything the server wrote until it closed or went quiet. */
function raw(request: string | Buffer, quietMs = 300): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let out = "";
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(out);
    };
    socket.on("data", (d) => {
      out += d.toString("utf8");
      clearTimeout(timer);
      timer = setTimeout(done, quietMs);
    });
    socket.on("end", done);
    socket.on("error", (e) => (out ? done() : reject(e)));
    socket.write(request);
  });
}

function head(text: string): { status: number; headers: Record<string, string>; body: string } {
  const [top, ...rest] = text.split("\r\n\r\n");
  const [line, ...lines] = top.split("\r\n");
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(":");
    headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: Number(line.split(" ")[1]), headers, body: rest.join("\r\n\r\n") };
}

describe("the node:http transport", () => {
  it("answers a GET in one piece with Content-Length, and HEAD with the same headers and no body", async () => {
    const get = await fetch(`http://127.0.0.1:${port}/api/v1/api-keys/current`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const text = await get.text();
    expect(get.status).toBe(200);
    expect(get.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(get.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(get.headers.get("x-trace-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(get.headers.get("x-ratelimit-limit")).not.toBeNull();
    expect(JSON.parse(text).scopes).toEqual(["read", "write"]);

    const answer = head(
      await raw(
        `HEAD /api/v1/api-keys/current HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
      ),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers["content-length"]).toBe(String(Buffer.byteLength(text)));
    expect(answer.body).toBe("");
  });

  it("refuses a body past its limit with the coded 413 and closes the connection", async () => {
    const big = JSON.stringify({ title: "t", content: "x".repeat(JSON_BODY_LIMIT + 10) });
    const { req, answer } = openRequest(`http://127.0.0.1:${port}/api/v1/memories`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "transfer-encoding": "chunked" },
    });
    // Chunked, so that the limit is found while reading, not from Content-Length.
    for (let i = 0; i < big.length; i += 64 * 1024) req.write(big.slice(i, i + 64 * 1024));
    req.end();
    const res = await answer;
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe("close");
    expect(JSON.parse(res.text).details.error_code).toBe("payload_too_large");

    // A declared length past the limit is refused before a byte of the body is read.
    const declared = head(
      await raw(
        `POST /api/v1/memories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${JSON_BODY_LIMIT + 1}\r\n\r\n{`,
      ),
    );
    expect(declared.status).toBe(413);
    expect(declared.headers.connection).toBe("close");
  });

  it("answers odd request targets and Host headers with coded errors, never a 5xx", async () => {
    const targets = [
      ["GET * HTTP/1.1", "Host: x", 404],
      ["GET http://elsewhere.example/api/v1/api-keys/current HTTP/1.1", "Host: x", 200],
      ["GET /api/v1/api-keys/current HTTP/1.1", "Host: a b/c?d", 200],
      ["GET /api/v1/api-keys/current HTTP/1.1", "Host: 999.999.999.999", 200],
      ["GET /api/v1/api-keys/current HTTP/1.1", "Host: a:99999", 200],
      ["GET /api/v1/api-keys/current HTTP/1.1", "Host: [::::]", 200],
      ["GET /api/v1/api-keys/current HTTP/1.0", "X-No-Host: 1", 200],
      ["GET //api/v1/../v1/api-keys/current HTTP/1.1", "Host: x", 404],
    ] as const;
    for (const [line, host, status] of targets) {
      const answer = head(await raw(`${line}\r\n${host}\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`));
      expect(answer.status, line).toBe(status);
      expect(answer.headers["content-type"], line).toBe("application/json; charset=utf-8");
      JSON.parse(answer.body);
    }
  });

  it("answers what the HTTP parser refuses with the coded body, X-Trace-Id and X-RateLimit-*, then closes", async () => {
    const cases: [string, number, string][] = [
      ["GARBAGE\r\n\r\n", 400, "validation_failed"],
      ["GET /api/v1/templates HTTP/1.1\r\nHost: x\r\nBad\u0001Name: 1\r\n\r\n", 400, "validation_failed"],
      [
        `GET /api/v1/templates HTTP/1.1\r\nHost: x\r\nX-Long: ${"a".repeat(20_000)}\r\n\r\n`,
        431,
        "request_headers_too_large",
      ],
    ];
    for (const [request, status, code] of cases) {
      const res = head(await raw(request));
      expect(res.status, request.slice(0, 40)).toBe(status);
      expect(res.headers).toMatchObject({ connection: "close", "content-type": "application/json; charset=utf-8" });
      expect(res.headers["x-trace-id"]).toMatch(/^[0-9a-f-]{36}$/);
      for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"])
        expect(res.headers[name], name).toMatch(/^\d+$/);
      const body = JSON.parse(res.body);
      expect(body).toMatchObject({ details: { error_code: code }, trace_id: res.headers["x-trace-id"] });
      expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.body));
    }
    // The server is still up.
    expect(
      head(await raw(`GET /api/v1/templates HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`)).status,
    ).toBe(200);
  });

  it("answers a request whose headers do not arrive in time with the coded 408", async () => {
    const res = head(await raw("GET /api/v1/templates HTTP/1.1\r\nHost: x\r\n", 4_000));
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toMatchObject({ details: { error_code: "request_timeout" } });
    expect(res.headers["x-ratelimit-limit"]).toMatch(/^\d+$/);
  });

  it("cuts, without running it, a request whose body does not arrive in time", async () => {
    const body = JSON.stringify({ kind: "voice", title: "Late", content: "A body that came too slowly." });
    const socket = net.connect(port, "127.0.0.1");
    const closed = new Promise<string>((resolve) => {
      let out = "";
      socket.on("data", (d) => {
        out += d.toString("utf8");
      });
      socket.on("close", () => resolve(out));
      socket.on("error", () => {});
    });
    socket.write(
      `POST /api/v1/memories?workspace_id=${h.a.ws1} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    // Past the request timeout (1.5 s, checked every 200 ms), the rest of the body follows.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    socket.write(body.slice(10));
    expect(await closed).toBe("");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const list = await h.send("GET", `/api/v1/memories?workspace_id=${h.a.ws1}`, { auth: key });
    expect(list.body.data.map((m: { title: string }) => m.title)).not.toContain("Late");
  });

  it("streams a generation as server-sent events", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/generate`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ template_id: 1, user_direction: "Quarterly planning for small teams", stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await res.text();
    expect(text).toMatch(/^event: delta/m);
    expect(text).toMatch(/^event: done/m);
  });

  it("replays a completed stream under its Idempotency-Key: the same bytes, whole, with Idempotent-Replayed", async () => {
    const send = () =>
      fetch(`http://127.0.0.1:${port}/api/v1/generate`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": "node-st" },
        body: JSON.stringify({ template_id: 1, user_direction: "Streams kept for retries", stream: true }),
      });
    const first = await send();
    const firstBytes = Buffer.from(await first.arrayBuffer());
    expect(first.headers.get("transfer-encoding")).toBe("chunked");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-length")).toBe(String(firstBytes.byteLength));
    expect(Buffer.from(await again.arrayBuffer()).equals(firstBytes)).toBe(true);
  });

  it("cuts a stream whose client takes nothing for the stall limit, and cancels it", async () => {
    let cancelled = false;
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    const app = {
      serve: async () => ({
        status: 200,
        headers: { "content-type": "text/event-stream" },
        body: new ReadableStream<Uint8Array>({
          pull: (c) => c.enqueue(chunk),
          cancel: () => {
            cancelled = true;
          },
        }),
      }),
    } as unknown as App;
    const own = http.createServer(nodeListener(app, { streamStallMs: 200 }));
    await new Promise<void>((resolve) => own.listen(0, "127.0.0.1", resolve));
    // A client that reads nothing, as behind a half-open connection: the socket's buffers fill and stay full.
    const socket = net.connect((own.address() as net.AddressInfo).port, "127.0.0.1", () => {
      socket.pause();
      socket.write("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    });
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.on("error", () => {});
    await expect.poll(() => cancelled, { timeout: 10_000 }).toBe(true);
    socket.resume();
    await closed;
    own.close();
  });

  it("cancels a stream whose client went away before its answer began", async () => {
    // The answer is ready only once the client has gone: its "close" came before the body was sent.
    let gone!: () => void;
    const left = new Promise<void>((resolve) => {
      gone = resolve;
    });
    let cancelled = false;
    const app = {
      serve: async () => {
        await left;
        const body = new ReadableStream<Uint8Array>({
          pull: (c) => c.enqueue(new TextEncoder().encode("data: x\n\n")),
          cancel: () => {
            cancelled = true;
          },
        });
        return { status: 200, headers: { "content-type": "text/event-stream" }, body };
      },
    } as unknown as App;
    let socket!: net.Socket;
    const own = http.createServer((req, res) => {
      res.on("close", () => setImmediate(gone));
      nodeListener(app)(req, res);
      socket.destroy();
    });
    await new Promise<void>((resolve) => own.listen(0, "127.0.0.1", resolve));
    socket = net.connect((own.address() as net.AddressInfo).port, "127.0.0.1", () => {
      socket.write("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    });
    await left;
    await expect.poll(() => cancelled).toBe(true);
    own.close();
  });

  it("stays up when a client goes away in the middle of a body", async () => {
    await new Promise<void>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.write(
          `POST /api/v1/memories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    const after = await fetch(`http://127.0.0.1:${port}/api/v1/api-keys/current`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(after.status).toBe(200);
  });
});
