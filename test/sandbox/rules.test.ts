/**
 * Fault rules (src/sandbox/rules.ts, GET|POST|DELETE /_sandbox/faults, DELETE /_sandbox/faults/{id}): matched by
 * method, path pattern, key id and body fields; answered as the Prefer header's faults are; counted or drawn;
 * listed, removed and cleared; validated.
 */
import { describe, expect, it } from "vitest";
import { makeSandboxHarness } from "../helpers/sandbox.js";

const ME = "/api/v1/users/me";

async function addRule(h: ReturnType<typeof makeSandboxHarness>, rule: unknown) {
  const res = await h.sendSandbox("POST", "/_sandbox/faults", { body: rule });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe("fault rules", () => {
  it("answer the requests they match with the error asked for, as a Prefer header would", async () => {
    const h = makeSandboxHarness();
    const key = h.key();
    await addRule(h, { match: { method: "get", path: "/api/v1/users/*" }, answer: { status: 429 } });
    const ruled = await h.sendSandbox("GET", ME, { auth: key });
    const asked = await h.sendSandbox("GET", ME, { auth: h.key(), headers: { prefer: "status=429" } });
    expect(ruled.status).toBe(429);
    expect(ruled.body.details).toEqual(asked.body.details);
    expect(ruled.headers.get("retry-after")).toBe(asked.headers.get("retry-after"));
    // Not matched: another method, another path.
    expect((await h.sendSandbox("GET", "/api/v1/memories", { auth: key })).status).toBe(200);
  });

  it("match a key id and body fields", async () => {
    const h = makeSandboxHarness();
    const key = h.key();
    const other = h.key();
    const me = await h.sendSandbox("GET", ME, { auth: key });
    await h.sendSandbox("DELETE", "/_sandbox/faults");
    const keyId = (await h.sendSandbox("GET", "/_sandbox/requests")).body.data[0].key_id;
    expect(me.status).toBe(200);
    await addRule(h, { match: { key_id: keyId, body: { kind: "context" } }, answer: { error_code: "storage_full" } });
    const memory = (kind: string, auth: string) =>
      h.sendSandbox("POST", "/api/v1/memories", { auth, body: { kind, content: "Flat roofs." } });
    expect((await memory("context", key)).status).toBe(507);
    expect((await memory("voice", key)).status).toBe(201);
    expect((await memory("context", other)).status).toBe(201);
  });

  it("answer `times` requests, then go", async () => {
    const h = makeSandboxHarness();
    const key = h.key();
    const rule = await addRule(h, { answer: { status: 503 }, times: 2 });
    expect(rule).toMatchObject({ id: expect.stringMatching(/^flt_/), times_left: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await h.sendSandbox("GET", ME, { auth: key })).status);
    expect(statuses).toEqual([503, 503, 200]);
    expect((await h.sendSandbox("GET", "/_sandbox/faults")).body.data).toEqual([]);
  });

  it("with probability 1 always answer; a delay range answers the real answer", async () => {
    const h = makeSandboxHarness();
    const key = h.key();
    await addRule(h, { match: { path: ME }, answer: { delay: "1ms-3ms" }, probability: 1 });
    const res = await h.sendSandbox("GET", ME, { auth: key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual((await h.send("GET", ME, { auth: key })).body);
  });

  it("are listed in order, removed one by one (404 for one not there) and cleared", async () => {
    const h = makeSandboxHarness();
    const a = await addRule(h, { answer: { fault: "reset" } });
    const b = await addRule(h, { answer: { status: 500 } });
    expect((await h.sendSandbox("GET", "/_sandbox/faults")).body.data.map((r: { id: string }) => r.id)).toEqual([
      a.id,
      b.id,
    ]);
    expect((await h.sendSandbox("DELETE", `/_sandbox/faults/${a.id}`)).status).toBe(204);
    const gone = await h.sendSandbox("DELETE", `/_sandbox/faults/${a.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.message).toContain(a.id);
    expect(gone.body.details).toEqual({ error_code: "fault_rule_not_found", rule_id: a.id });
    expect((await h.sendSandbox("DELETE", "/_sandbox/faults")).status).toBe(204);
    expect((await h.sendSandbox("GET", "/_sandbox/faults")).body.data).toEqual([]);
  });

  it.each([
    [{}, "body.answer"],
    [{ answer: {} }, "body.answer"],
    [{ answer: { status: 418 } }, "body.answer"],
    [{ answer: { delay: "forever" } }, "body.answer"],
    [{ answer: { status: 429 }, times: 0 }, "body.times"],
    [{ answer: { status: 429 }, probability: 2 }, "body.probability"],
    [{ answer: { status: 429 }, match: { path: "/healthz" } }, "body.match.path"],
    [{ answer: { status: 429 }, other: 1 }, "body.other"],
  ])("refuse %j with a coded 400 naming %s", async (rule, path) => {
    const h = makeSandboxHarness();
    const res = await h.sendSandbox("POST", "/_sandbox/faults", { body: rule });
    expect(res.status).toBe(400);
    expect(res.body.details.error_code).toBe("validation_failed");
    expect(res.body.details.issues[0].path).toBe(path);
  });
});
