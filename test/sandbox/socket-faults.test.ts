/**
 * `Prefer: fault=reset|empty|truncated` on a real connection (src/sandbox/socket-faults.ts): the request runs, its
 * answer is lost as the fault says; a request without one on the same server is answered as always.
 */
import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { listenSandbox, makeSandboxHarness } from "../helpers/sandbox.js";

/** What a client sees of one request: the status, headers and bytes received, or the error its connection ended in. */
interface Seen {
  status?: number;
  headers?: http.IncomingHttpHeaders;
  received: number;
  error?: string;
}

function request(url: string, key: string, prefer?: string, body?: unknown): Promise<Seen> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (prefer) headers.prefer = prefer;
    if (body !== undefined) headers["content-type"] = "application/json";
    const seen: Seen = { received: 0 };
    const req = http.request(
      `${url}/api/v1/memories`,
      { method: body ? "POST" : "GET", headers, agent: false },
      (res) => {
        seen.status = res.statusCode;
        seen.headers = res.headers;
        res.on("data", (chunk: Buffer) => {
          seen.received += chunk.byteLength;
        });
        res.on("end", () => resolve(seen));
        res.on("error", (e: NodeJS.ErrnoException) => resolve({ ...seen, error: e.code ?? e.message }));
      },
    );
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ ...seen, error: e.code ?? e.message }));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

let close: (() => void) | undefined;
afterEach(() => close?.());

async function served() {
  const h = makeSandboxHarness();
  const { url, server } = await listenSandbox(h);
  close = () => server.close();
  return { h, url, key: h.key() };
}

describe("socket faults", () => {
  it("reset: the connection is reset without an answer, after the request ran", async () => {
    const { url, key } = await served();
    const seen = await request(url, key, "fault=reset", { kind: "context", content: "Stored all the same" });
    expect(seen.status).toBeUndefined();
    expect(seen.error).toBe("ECONNRESET");
    const list = await request(url, key);
    expect(list.status).toBe(200);
  });

  it("empty: the connection closes without a byte", async () => {
    const { url, key } = await served();
    const seen = await request(url, key, "fault=empty");
    expect(seen.status).toBeUndefined();
    expect(seen.error).toMatch(/socket hang up|ECONNRESET/);
  });

  it("truncated: the headers with the whole Content-Length, half the bytes, then the connection closes", async () => {
    const { url, key } = await served();
    const whole = await request(url, key);
    const length = Number(whole.headers!["content-length"]);
    const seen = await request(url, key, "fault=truncated");
    expect(seen.status).toBe(200);
    expect(Number(seen.headers!["content-length"])).toBe(length);
    expect(seen.headers!["x-sandbox"]).toBe("1");
    expect(seen.received).toBe(Math.floor(length / 2));
    expect(seen.error).toBe("ECONNRESET");
  });

  it("the request ran: a POST whose connection was reset is stored", async () => {
    const { h, url, key } = await served();
    await request(url, key, "fault=reset", { kind: "context", content: "Stored all the same" });
    const list = await h.send("GET", "/api/v1/memories", { auth: key });
    expect(list.body.data.map((m: { content: string }) => m.content)).toContain("Stored all the same");
  });
});
