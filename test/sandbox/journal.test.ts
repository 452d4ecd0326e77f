/**
 * The request journal (src/sandbox/journal.ts, GET|DELETE /_sandbox/requests): what each request sent and was
 * answered, credentials redacted to their shown prefix, newest first, filtered, bounded and clearable.
 */
import { describe, expect, it } from "vitest";
import { displayPrefix } from "../../src/domain/apikeys.js";
import { JOURNAL_BODY_BYTES } from "../../src/sandbox/journal.js";
import { makeSandboxHarness } from "../helpers/sandbox.js";

const journal = async (h: ReturnType<typeof makeSandboxHarness>, query = "") =>
  (await h.sendSandbox("GET", `/_sandbox/requests${query}`)).body.data;

describe("the request journal", () => {
  it("records method, path, query, headers, body, status, trace id, key id and duration, newest first", async () => {
    const h = makeSandboxHarness();
    const key = h.key();
    const created = await h.sendSandbox("POST", `/api/v1/memories?workspace_id=${h.a.ws1}`, {
      auth: key,
      body: { kind: "context", content: "Owners of flat roofs." },
      headers: { "x-client": "suite" },
    });
    await h.sendSandbox("GET", "/api/v1/nowhere");
    const [last, first] = await journal(h);
    expect(last).toMatchObject({ method: "GET", path: "/api/v1/nowhere", status: 404, key_id: null, body: null });
    expect(first).toMatchObject({
      method: "POST",
      path: "/api/v1/memories",
      query: { workspace_id: h.a.ws1 },
      body: { kind: "context", content: "Owners of flat roofs." },
      body_truncated: false,
      status: 201,
      trace_id: created.headers.get("x-trace-id"),
    });
    expect(first.headers["x-client"]).toBe("suite");
    expect(first.key_id).toMatch(/^key_/);
    expect(typeof first.duration_ms).toBe("number");
  });

  it("redacts credentials to the prefix the server shows of a key, and secret fields of bodies", async () => {
    const h = makeSandboxHarness();
    const key = h.key();
    await h.sendSandbox("GET", "/api/v1/users/me", { auth: key, headers: { cookie: "session=abc", "x-api-key": key } });
    await h.sendSandbox("POST", "/api/v1/auth/login", { body: { email: "admin@a.test", password: "hunter2hunter2" } });
    const [login, me] = await journal(h);
    expect(me.headers.authorization).toBe(`Bearer ${displayPrefix(key)}[redacted]`);
    expect(me.headers["x-api-key"]).toBe(`${displayPrefix(key)}[redacted]`);
    expect(me.headers.cookie).toBe("[redacted]");
    expect(login.body).toEqual({ email: "admin@a.test", password: "[redacted]" });
    expect(JSON.stringify(await journal(h))).not.toContain(key);
    expect(JSON.stringify(await journal(h))).not.toContain("hunter2");
  });

  it("filters by path (with *), method, key id and status, together", async () => {
    const h = makeSandboxHarness();
    const key = h.key();
    const other = h.key();
    await h.sendSandbox("GET", "/api/v1/memories", { auth: key });
    await h.sendSandbox("GET", "/api/v1/memories", { auth: other });
    await h.sendSandbox("POST", "/api/v1/memories", { auth: key, body: {} });
    await h.sendSandbox("GET", "/api/v1/users/me", { auth: key });
    const keyId = (await journal(h, "?path=/api/v1/users/me"))[0].key_id;
    expect(await journal(h, "?path=/api/v1/mem*")).toHaveLength(3);
    expect(await journal(h, "?method=post")).toHaveLength(1);
    expect(await journal(h, `?key_id=${keyId}`)).toHaveLength(3);
    expect(await journal(h, `?key_id=${keyId}&method=GET&path=/api/v1/memories`)).toHaveLength(1);
    expect(await journal(h, "?status=400")).toHaveLength(1);
  });

  it("refuses a filter it cannot read with a coded 400", async () => {
    const h = makeSandboxHarness();
    for (const query of ["?status=abc", "?status=700", "?method=G%20T", "?other=1"]) {
      const res = await h.sendSandbox("GET", `/_sandbox/requests${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.details.error_code).toBe("validation_failed");
    }
  });

  it("keeps the last N requests, and each body up to 64 KiB", async () => {
    const h = makeSandboxHarness(3);
    const key = h.key();
    for (let i = 0; i < 5; i++) await h.sendSandbox("GET", `/api/v1/memories?limit=${i + 1}`, { auth: key });
    expect((await journal(h)).map((e: { query: { limit: string } }) => e.query.limit)).toEqual(["5", "4", "3"]);
    await h.sendSandbox("POST", "/api/v1/memories", {
      auth: key,
      body: { kind: "context", content: "x".repeat(70_000) },
    });
    const [long] = await journal(h);
    expect(long.body_truncated).toBe(true);
    expect(Buffer.byteLength(long.body)).toBe(JOURNAL_BODY_BYTES);
  });

  it("leaves out the sandbox's own operations, and is cleared by DELETE", async () => {
    const h = makeSandboxHarness();
    await h.sendSandbox("GET", "/healthz");
    await journal(h);
    expect(await journal(h)).toHaveLength(1);
    expect((await h.sendSandbox("DELETE", "/_sandbox/requests")).status).toBe(204);
    expect(await journal(h)).toEqual([]);
  });
});
