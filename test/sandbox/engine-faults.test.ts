/**
 * Engine rules (src/sandbox/engine-faults.ts): `"answer": {"engine": "slow" | "fail" | "garbage"}` makes the on-prem
 * model server time out, fail or answer garbage, and the server's own handling of it answers: 504 upstream_timeout,
 * 502 upstream_error, 502 upstream_invalid_response, for plain and streamed generations.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { ROUTES } from "../../src/routes/index.js";
import { SandboxClock } from "../../src/sandbox/clock.js";
import { createSandbox, JOURNAL_DEFAULT } from "../../src/sandbox/index.js";
import { type FakeLlm, startFakeLlm } from "../helpers/fake-llm.js";
import { makeHarness, sendTo } from "../helpers/harness.js";

let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(() => fake.close());

/** A sandbox app over a harness whose model server is the fake (`plain` answers well), with a 300 ms timeout. */
function setup() {
  const h = makeHarness({ config: { llm: { baseUrl: fake.url, model: "plain", timeoutMs: 300 } } });
  const sandbox = createSandbox({ journalSize: JOURNAL_DEFAULT }, h.services, new SandboxClock(h.services.clock));
  const app = createApp(h.services, [...ROUTES, ...sandbox.routes], sandbox.extension);
  const key = h.key({ workspaceId: h.a.ws1 });
  const send = (method: string, path: string, body?: unknown) => sendTo(app, method, path, { auth: key, body });
  const generate = (stream = false) =>
    send("POST", "/api/v1/generate", { template_id: 1, user_direction: "Planning reviews", model: "plain", stream });
  const rule = async (rule: unknown) => {
    const res = await send("POST", "/_sandbox/faults", rule);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  return { send, generate, rule };
}

describe("engine rules", () => {
  it("fail: the model server's error is the real 502 upstream_error, then the next call works", async () => {
    const { generate, rule } = setup();
    await rule({ match: { engine: "llm" }, answer: { engine: "fail" }, times: 1 });
    const failed = await generate();
    expect(failed.status).toBe(502);
    expect(failed.body.details).toMatchObject({ error_code: "upstream_error", model: "plain", upstream_status: 500 });
    expect(failed.body.message).toMatch(/^The model server answered with an error: The model server failed/);
    expect((await generate()).status).toBe(201);
  });

  it("slow without a delay: the server's timeout answers 504 upstream_timeout", async () => {
    const { generate, rule } = setup();
    await rule({ answer: { engine: "slow" } });
    const slow = await generate();
    expect(slow.status).toBe(504);
    expect(slow.body.details).toMatchObject({ error_code: "upstream_timeout", timeout_seconds: 0.3 });
  });

  it("slow with a delay within the timeout: the real answer, from the real model server", async () => {
    const { generate, rule } = setup();
    const before = fake.requests.length;
    await rule({ answer: { engine: "slow", delay: "10ms" }, times: 1 });
    expect((await generate()).status).toBe(201);
    expect(fake.requests.length).toBe(before + 1);
  });

  it("garbage: 502 upstream_invalid_response, plain; an error event, streamed", async () => {
    const { generate, rule } = setup();
    await rule({ answer: { engine: "garbage" }, times: 2 });
    const plain = await generate();
    expect(plain.status).toBe(502);
    expect(plain.body.details.error_code).toBe("upstream_invalid_response");
    const streamed = await generate(true);
    expect(streamed.body).toMatch(/event: error\ndata: .*"upstream_invalid_response"/);
  });

  it("leave the requests alone, and the requests' rules leave the model server alone", async () => {
    const { send, rule } = setup();
    await rule({ answer: { engine: "fail" } });
    expect((await send("GET", "/api/v1/users/me")).status).toBe(200);
  });

  it("refuse what cannot go with an engine answer, naming the field", async () => {
    const { send } = setup();
    const refused = async (rule: unknown) => {
      const res = await send("POST", "/_sandbox/faults", rule);
      expect(res.status).toBe(400);
      return res.body.details.issues[0].path;
    };
    expect(await refused({ match: { path: "/api/v1/generate" }, answer: { engine: "fail" } })).toBe("body.match.path");
    expect(await refused({ answer: { engine: "fail", status: 503 } })).toBe("body.answer.status");
    expect(await refused({ answer: { engine: "fail", delay: "1s" } })).toBe("body.answer.delay");
    expect(await refused({ match: { engine: "llm" }, answer: { status: 503 } })).toBe("body.answer.engine");
    expect(await refused({ answer: { engine: "melt" } })).toBe("body.answer.engine");
  });
});
