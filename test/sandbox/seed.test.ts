/**
 * `serve --sandbox --seed N` (src/sandbox/seed.ts, src/runtime/random.ts): two executables with the same seed, sent
 * the same requests, answer byte for byte the same (ids, key secrets, the generated password, session tokens, trace
 * ids, timestamps, the builtin engine's text); another seed draws other ids; `--seed` without `--sandbox` is refused.
 */
import { describe, expect, it } from "vitest";
import { cli, startServe, tempDir } from "../helpers/cli.js";

const CLEAN = { CONTENT_SERVICE_SANDBOX: undefined, CONTENT_SERVICE_SANDBOX_SEED: undefined };

/** Every answer of a fixed sequence of requests, as text: status, the headers but Date, and the body. */
async function session(seed: number): Promise<{ banner: string; answers: string[] }> {
  const server = await startServe(tempDir(), ["--sandbox", "--seed", String(seed)], CLEAN);
  try {
    for (let i = 0; i < 200 && !server.output().includes("Sandbox mode:"); i++)
      await new Promise((r) => setTimeout(r, 25));
    const out = server.output();
    const key = /svc_live_[0-9A-Za-z]{32}/.exec(out)?.[0];
    const password = /password (\S+) \(shown once\)/.exec(out)?.[1];
    const answers: string[] = [];
    const send = async (method: string, path: string, auth?: string, body?: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { ...(auth ? { authorization: `Bearer ${auth}` } : {}), "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const headers = [...res.headers].filter(([name]) => name !== "date");
      const text = await res.text();
      answers.push(`${method} ${path} ${res.status}\n${JSON.stringify(headers)}\n${text}`);
      return text ? JSON.parse(text) : undefined;
    };
    await send("GET", "/api/v1/users/me", key);
    await send("POST", "/api/v1/memories", key, { kind: "context", content: "Owners of flat roofs." });
    await send("POST", "/api/v1/generate", key, { template_id: 1, user_direction: "Flat roof repairs" });
    const login = await send("POST", "/api/v1/auth/login", undefined, { email: "admin@localhost", password });
    await send("POST", "/api/v1/api-keys", login.access_token ?? login.token, { name: "ci" });
    await send("GET", "/api/v1/memories", key);
    return { banner: `${key} ${password}`, answers };
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
  }
}

describe("serve --sandbox --seed", () => {
  it("answers the same requests byte for byte the same on every run; another seed, other ids", async () => {
    const first = await session(7);
    const again = await session(7);
    expect(again.banner).toBe(first.banner);
    expect(again.answers).toEqual(first.answers);
    // Each request ran: nothing refused that would make the comparison empty.
    expect(first.answers.map((a) => a.split("\n")[0].split(" ")[2])).toEqual([
      "200",
      "201",
      "201",
      "200",
      "201",
      "200",
    ]);
    const other = await session(8);
    expect(other.banner).not.toBe(first.banner);
    expect(other.answers[1]).not.toBe(first.answers[1]);
  });

  it("is refused without --sandbox", () => {
    const run = cli(["serve", "--data-dir", tempDir(), "--port", "0", "--seed", "7"], { env: CLEAN });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--seed needs --sandbox");
  });
});
