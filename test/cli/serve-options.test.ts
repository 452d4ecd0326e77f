/**
 * The options of `serve` and `openapi` checked before anything is opened, and the failures that name the option (and
 * the environment variable) that caused them: a bad --host, --workers out of range, an address this machine does not
 * have, a port in use, options that go together, a description for --port 0, and files that are streams or folders.
 */
import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hostArg } from "../../src/cli/args.js";
import { cli, initDir, tempDir } from "../helpers/cli.js";

/** The variables the tests set, unset for every run so that the machine's own do not leak in. */
const CLEAN = {
  CONTENT_SERVICE_HOST: undefined,
  CONTENT_SERVICE_PORT: undefined,
  CONTENT_SERVICE_WORKERS: undefined,
  CONTENT_SERVICE_LLM_BASE_URL: undefined,
  CONTENT_SERVICE_LLM_MODEL: undefined,
  CONTENT_SERVICE_IMAGE_MODEL: undefined,
  CONTENT_SERVICE_IMAGE_BASE_URL: undefined,
  CONTENT_SERVICE_PUBLIC_URL: undefined,
  CONTENT_SERVICE_STAGING_URL: undefined,
};
const run = (args: string[], env: Record<string, string> = {}) => cli(args, { env: { ...CLEAN, ...env } });

describe("serve --host", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["0.0.0.0", "0.0.0.0"],
    ["::", "::"],
    ["::1", "::1"],
    ["[::1]", "::1"],
    ["localhost", "localhost"],
    ["api.example.test", "api.example.test"],
    ["api.example.test.", "api.example.test."],
    ["xn--bcher-kva.example", "xn--bcher-kva.example"],
  ])("takes %s", (given, taken) => {
    expect(hostArg(given)).toBe(taken);
  });

  it.each([
    "",
    " ",
    "localhost:8080",
    "http://127.0.0.1",
    "127.0.0.1/8",
    "999.1.1.1",
    "1.2.3",
    "a b",
    "-leading.example",
    "trailing-.example",
    "under_score.example",
    "a..b",
    `${"a".repeat(64)}.example`,
    "[127.0.0.1]",
    "[::1",
  ])("refuses %j", (given) => {
    expect(() => hostArg(given)).toThrow(/--host must be an IP address or a host name/);
  });

  it("is a usage error (exit 2) that names the variable it came from, before the data directory is touched", () => {
    const dir = tempDir();
    const flag = run(["serve", "--data-dir", dir, "--host", "localhost:8080"]);
    expect(flag.status).toBe(2);
    expect(flag.stderr).toBe('error: --host must be an IP address or a host name, got "localhost:8080"\n');
    const env = run(["serve", "--data-dir", dir], { CONTENT_SERVICE_HOST: "http://0.0.0.0" });
    expect(env.status).toBe(2);
    expect(env.stderr).toBe(
      'error: --host must be an IP address or a host name, got "http://0.0.0.0" (from CONTENT_SERVICE_HOST)\n',
    );
    // openapi takes the same option and variable.
    const openapi = run(["openapi"], { CONTENT_SERVICE_HOST: "a b" });
    expect(openapi.status).toBe(2);
    expect(openapi.stderr).toMatch(/\(from CONTENT_SERVICE_HOST\)\n$/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("serve's listen failures", () => {
  it("names --host, and its variable, for an address this machine does not have, showing no credentials", () => {
    const dir = tempDir();
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): no machine's own address.
    for (const [args, env, named] of [
      [["--host", "192.0.2.7"], {}, "--host 192.0.2.7"],
      [[], { CONTENT_SERVICE_HOST: "192.0.2.7" }, "--host 192.0.2.7 (from CONTENT_SERVICE_HOST)"],
      // --port 0 too: the address is checked before the first start.
      [["--port", "0"], { CONTENT_SERVICE_HOST: "192.0.2.7" }, "--host 192.0.2.7 (from CONTENT_SERVICE_HOST)"],
    ] as const) {
      const res = run(["serve", "--data-dir", dir, "--workers", "1", ...args], env);
      expect(res.status, res.stderr).toBe(1);
      expect(res.stderr).toBe(`error: cannot listen: ${named} is not an address of this machine\n`);
      expect(res.stdout + res.stderr).not.toMatch(/svc_live_|password/);
    }
  });

  it("names --port, and its variable, when the port is in use", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", () => resolve()));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const dir = tempDir();
      const env = run(["serve", "--data-dir", dir, "--workers", "1"], { CONTENT_SERVICE_PORT: String(port) });
      expect(env.status).toBe(1);
      expect(env.stderr).toBe(
        `error: cannot listen: --port ${port} (from CONTENT_SERVICE_PORT) is in use (on --host 127.0.0.1): ` +
          "another program listens there\n",
      );
      const flag = run(["serve", "--data-dir", dir, "--workers", "1", "--port", String(port)], {
        CONTENT_SERVICE_HOST: "127.0.0.1",
      });
      expect(flag.stderr).toBe(
        `error: cannot listen: --port ${port} is in use (on --host 127.0.0.1 (from CONTENT_SERVICE_HOST)): ` +
          "another program listens there\n",
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe("serve --workers", () => {
  it.each([
    [["--workers", "0"], {}, '"0"'],
    [["--workers", "65"], {}, '"65"'],
    [["--workers", "1000000"], {}, '"1000000"'],
    [[], { CONTENT_SERVICE_WORKERS: "99" }, '"99" (from CONTENT_SERVICE_WORKERS)'],
  ] as const)("refuses %j %j with exit 2 naming 1 to 64", (args, env, got) => {
    const res = run(["serve", "--data-dir", tempDir(), "--port", "0", ...args], env);
    expect(res.status).toBe(2);
    expect(res.stderr).toBe(`error: --workers must be a whole number from 1 to 64, got ${got}\n`);
  });

  it("lists the range in its help", () => {
    expect(run(["serve", "--help"]).stdout).toMatch(/--workers <n>\s+worker threads for heavy work \(1 to 64\)/);
  });
});

describe("serve's options that go together", () => {
  it("names each option given, with its variable when it came from one", () => {
    const dir = tempDir();
    const cases = [
      [
        [],
        { CONTENT_SERVICE_LLM_MODEL: "m" },
        "--llm-model (from CONTENT_SERVICE_LLM_MODEL) needs --llm-base-url (or CONTENT_SERVICE_LLM_BASE_URL): they go together",
      ],
      [
        ["--llm-base-url", "http://127.0.0.1:9"],
        {},
        "--llm-base-url needs --llm-model (or CONTENT_SERVICE_LLM_MODEL): they go together",
      ],
      [
        ["--llm-base-url", "http://127.0.0.1:9"],
        { CONTENT_SERVICE_LLM_MODEL: "builtin" },
        '--llm-model (from CONTENT_SERVICE_LLM_MODEL) cannot be "builtin", the name of the built-in engine',
      ],
      [
        [],
        { CONTENT_SERVICE_IMAGE_MODEL: "img" },
        "--image-model (from CONTENT_SERVICE_IMAGE_MODEL) needs --image-base-url or --llm-base-url (or " +
          "CONTENT_SERVICE_IMAGE_BASE_URL, CONTENT_SERVICE_LLM_BASE_URL)",
      ],
    ] as const;
    for (const [args, env, message] of cases) {
      const res = run(["serve", "--data-dir", dir, "--port", "0", ...args], env);
      expect(res.status, res.stderr).toBe(2);
      expect(res.stderr).toBe(`error: ${message}\n`);
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("openapi", () => {
  it("refuses --port 0 unless both server URLs are given", () => {
    const message =
      "the description's default URLs would name port 0, which no server listens on; give the port serve listens " +
      "on, or both --public-url and --staging-url";
    const flag = run(["openapi", "--port", "0"]);
    expect(flag.status).toBe(2);
    expect(flag.stderr).toBe(`error: --port 0: ${message}\n`);
    expect(flag.stdout).toBe("");
    const env = run(["openapi", "--public-url", "https://api.example.test"], { CONTENT_SERVICE_PORT: "0" });
    expect(env.status).toBe(2);
    expect(env.stderr).toBe(`error: --port 0 (from CONTENT_SERVICE_PORT): ${message}\n`);
    const both = run([
      "openapi",
      "--port",
      "0",
      "--public-url",
      "https://api.example.test",
      "--staging-url",
      "https://staging.example.test",
    ]);
    expect(both.status, both.stderr).toBe(0);
    expect(both.json().servers.map((s: { url: string }) => s.url)).toEqual([
      "https://api.example.test",
      "https://staging.example.test",
    ]);
  });

  it("writes to stdout for --out -, and refuses an empty --out or a directory with exit 2", () => {
    const cwd = tempDir();
    const dash = run(["openapi", "--out", "-"]);
    expect(dash.status, dash.stderr).toBe(0);
    expect(dash.json().openapi).toBe("3.1.0");
    expect(dash.stdout).toBe(run(["openapi"]).stdout);
    for (const out of ["", " "]) {
      const empty = run(["openapi", "--out", out]);
      expect(empty.status).toBe(2);
      expect(empty.stderr).toBe("error: --out is empty: give a file name (or - for standard output)\n");
      expect(empty.stdout).toBe("");
    }
    const folder = run(["openapi", "--out", cwd]);
    expect(folder.status).toBe(2);
    expect(folder.stderr).toBe(`error: --out ${cwd} is a directory: give a file name\n`);
    const file = path.join(cwd, "openapi.json");
    expect(run(["openapi", "--out", file]).status).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8")).openapi).toBe("3.1.0");
  });
});

describe("streams and empty arguments", () => {
  it("refuses backup --out - and restore --from - with exit 2: they need files", () => {
    const { d, dir } = initDir();
    const backup = run(["backup", "--out", "-", ...d]);
    expect(backup.status).toBe(2);
    expect(backup.stderr).toMatch(/^error: --out -: standard output is not supported .*: give a file name\n$/);
    expect(backup.stdout).toBe("");
    const restore = run(["restore", "--from", "-", ...d], {});
    expect(restore.status).toBe(2);
    expect(restore.stderr).toMatch(/^error: --from -: standard input is not supported .*: give a file name\n$/);
    for (const [flag, cmd] of [
      ["--out", "backup"],
      ["--from", "restore"],
    ])
      expect(run([cmd, flag, "", ...d]).stderr).toBe(`error: ${flag} is empty: give a file name\n`);
    expect(readdirSync(dir).filter((n) => n !== "content-service.db" && !n.includes("lock"))).toEqual([]);
  });

  it("refuses an empty or blank key or workspace id with exit 2, on every command that takes one", () => {
    const { d } = initDir();
    for (const [args, named] of [
      [["keys", "revoke", ""], "the key"],
      [["keys", "rotate", " "], "the key"],
      [["workspaces", "delete", ""], "the workspace id"],
      [["workspaces", "set-default", ""], "the workspace id"],
      [["keys", "create", "--account", "1", "--name", "k", "--workspace", ""], "--workspace"],
    ] as const) {
      const res = run([...args, ...d]);
      expect(res.status, args.join(" ")).toBe(2);
      expect(res.stderr).toBe(`error: ${named} is empty: give one (an unset shell variable?)\n`);
    }
    // Nothing was issued.
    expect(run(["keys", "list", "--json", ...d]).json()).toEqual([]);
  });
});

describe("serve --cors-origin", () => {
  it.each([
    [["--cors-origin", "https://app.example/path"], {}],
    [["--cors-origin", "*"], {}],
    [["--cors-origin", "https://ok.example", "ftp://files.example"], {}],
    [[], { CONTENT_SERVICE_CORS_ORIGINS: "https://ok.example app.example" }],
  ] as const)("refuses %j %j with exit 2 naming the value", (args, env) => {
    const res = run(["serve", "--data-dir", tempDir(), "--port", "0", ...args], env);
    expect(res.status).toBe(2);
    expect(res.stderr).toMatch(/--cors-origin: ".*" is not an origin/);
  });
});

describe("serve --metrics-token", () => {
  it.each([
    [["--metrics-token", "short-token"], {}],
    [["--metrics-token", `${"a".repeat(20)} ${"b".repeat(20)}`], {}],
    [[], { CONTENT_SERVICE_METRICS_TOKEN: "x".repeat(31) }],
  ] as const)("refuses %j %j, a token anyone could guess, with exit 2", (args, env) => {
    const res = run(["serve", "--data-dir", tempDir(), "--port", "0", ...args], env);
    expect(res.status).toBe(2);
    expect(res.stderr).toMatch(/--metrics-token: give at least 32 characters without spaces/);
  });
});

describe("serve --trust-proxy", () => {
  it.each([
    [["--trust-proxy", "proxy.example"], {}, "proxy.example"],
    [["--trust-proxy", "10.0.0.0/33"], {}, "10.0.0.0/33"],
    [["--trust-proxy", "loopback", "300.1.2.3"], {}, "300.1.2.3"],
    [[], { CONTENT_SERVICE_TRUST_PROXY: "loopback localhost" }, "localhost"],
  ] as const)("refuses %j %j at start with exit 2 naming the value", (args, env, bad) => {
    const res = run(["serve", "--data-dir", tempDir(), "--port", "0", ...args], env);
    expect(res.status).toBe(2);
    expect(res.stderr).toContain(`--trust-proxy: "${bad}" is not an IP address, a CIDR range`);
  });
});
