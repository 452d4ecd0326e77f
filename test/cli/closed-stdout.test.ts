/**
 * Standard output closed by its reader: `openapi | head` and a server whose request log's reader exits. Node's EPIPE
 * had been an uncaught exception: a stack trace and exit 1 for the command, and a stopped server.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  lstatSync,
  openSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { cli, ENTRY, initDir, startServe, tempDir } from "../helpers/cli.js";

/**
 * A first start of `serve` in `dir` without a standard error that shows anything, and the stdout log line that names
 * the credentials file. `stderr`: "gone", a pipe whose reader is gone before it writes anything (its writes meet
 * EPIPE); "closed", started as `serve 2>&-` (Node reopens fd 2 on /dev/null); "null", started as `serve 2>/dev/null`.
 */
async function firstStartWithoutStderr(dir: string, stderr: "gone" | "closed" | "null" = "gone") {
  const args = [...ENTRY, "serve", "--data-dir", dir, "--port", "0", "--workers", "1"];
  const env = { ...process.env, NODE_OPTIONS: "" };
  const nul = stderr === "null" ? openSync("/dev/null", "w") : undefined;
  const child =
    stderr === "closed"
      ? spawn("/bin/sh", ["-c", 'exec "$@" 2>&-', "sh", process.execPath, ...args], {
          env,
          stdio: ["ignore", "pipe", "pipe"],
        })
      : spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", nul ?? "pipe"] });
  if (nul !== undefined) closeSync(nul);
  // Stopped also when the test fails before its own kill (a server that never names the file, waited for in vain).
  onTestFinished(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  child.stderr?.destroy();
  const exited = new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  let stdout = "";
  const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      stdout += d;
      const found = stdout.split("\n").find((l) => l.includes("first-start-credentials.txt"));
      if (found) resolve(JSON.parse(found));
    });
    exited.then(() => reject(new Error(`exited:\n${stdout}`)));
  });
  return { child, exited, line };
}

describe("standard output closed early", () => {
  it("a command's output read in part: the rest is dropped, exit 0, nothing on stderr", async () => {
    const child = spawn(process.execPath, [...ENTRY, "openapi", "--data-dir", tempDir()], {
      env: { ...process.env, NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    // The description is megabytes: the pipe fills, and its reader goes after the first chunk, as `head` does.
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it.each([
    ["--out -", "-"],
    // A link to /dev/stdout made for the test: the write opens the pipe itself, and had met EPIPE as a failure
    // ("error: EPIPE: broken pipe, write", exit 1).
    ["--out, a link to /dev/stdout", "link"],
  ])("`openapi %s | head`: the rest is dropped, exit 0, nothing on stderr", (_, out) => {
    const dir = tempDir();
    const link = path.join(dir, "stdout");
    symlinkSync("/dev/stdout", link);
    // Through a shell: a real pipe (Node's own "pipe" is a socket, which /dev/stdout cannot open).
    const run = spawnSync(
      "bash",
      [
        "-c",
        '"$@" | head -c 100 > "$HEAD_OUT"; exit "$PIPESTATUS"', // the status of the first command
        "bash",
        process.execPath,
        ...ENTRY,
        "openapi",
        "--out",
        out === "-" ? "-" : link,
        "--data-dir",
        dir,
      ],
      { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "", HEAD_OUT: path.join(dir, "head") } },
    );
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: "" });
    expect(readFileSync(path.join(dir, "head"), "utf8")).toMatch(/^\{\n {2}"openapi"/);
  });

  it("a shown-once secret whose reader is gone: the key is made, but the command fails and says so", async () => {
    const { d } = initDir();
    const child = spawn(process.execPath, [...ENTRY, "keys", "create", "--account", "1", "--name", "lost", ...d], {
      env: { ...process.env, NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (x) => {
      stderr += x;
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    expect(stderr).toMatch(/^error: what standard output shows once \(a key's secret .* did not reach its reader/m);
    expect(code).toBe(1);
    expect(
      cli(["keys", "list", "--json", ...d])
        .json()
        .map((k: { name: string }) => k.name),
    ).toContain("lost");
  });

  it("a shown-once secret bound for a closed standard output (>&-, which Node reopens on /dev/null) fails before anything is made", () => {
    const { d } = initDir();
    // `"$@" >&-`: standard output closed before the command starts.
    const closed = (args: string[], input = "") =>
      spawnSync("bash", ["-c", '"$@" >&-', "bash", process.execPath, ...ENTRY, ...args], {
        encoding: "utf8",
        input,
        env: { ...process.env, NODE_OPTIONS: "" },
      });
    const refused = (what: string) =>
      `error: standard output is /dev/null (closed with >&- or sent there), where ${what}, shown once, would be lost: ` +
      "nothing was made; send standard output to a file or a terminal";
    const lastLine = (run: { stderr: string }) => run.stderr.split("\n").at(-2);
    const names = () =>
      cli(["keys", "list", "--json", ...d])
        .json()
        .map((k: { name: string }) => k.name);
    const before = names();
    const key = closed(["keys", "create", "--account", "1", "--name", "unseen", ...d]);
    expect({ status: key.status, stderr: key.stderr }).toEqual({
      status: 1,
      stderr: `${refused("the key's secret")}\n`,
    });
    expect(names()).toEqual(before);
    const seen = cli(["keys", "create", "--account", "1", "--name", "seen", "--json", ...d]).json();
    const rotated = closed(["keys", "rotate", seen.id, ...d]);
    expect({ status: rotated.status, last: lastLine(rotated) }).toEqual({
      status: 1,
      last: refused("the new key's secret"),
    });
    expect(names()).toEqual([...before, "seen"]);
    // A generated password: users create, and init's first one.
    // (After "reading the password from standard input…": an empty one, so one is generated.)
    const user = closed(["users", "create", "--account", "1", "--email", "unseen@x.test", ...d]);
    expect({ status: user.status, last: lastLine(user) }).toEqual({
      status: 1,
      last: refused("the generated password"),
    });
    expect(cli(["users", "list", ...d]).stdout).not.toContain("unseen@x.test");
    // A password given on standard input is not shown: the user is made.
    const given = closed(["users", "create", "--account", "1", "--email", "given@x.test", ...d], "a good password");
    expect(given.status, given.stderr).toBe(0);
    expect(cli(["users", "list", ...d]).stdout).toContain("given@x.test");
    const fresh = path.join(tempDir(), "data");
    const init = closed(["init", "--data-dir", fresh]);
    expect({ status: init.status, last: lastLine(init) }).toEqual({
      status: 1,
      last: refused("the admin's generated password"),
    });
    expect(existsSync(path.join(fresh, "content-service.db"))).toBe(false);
    // Nothing shown once, nothing lost: a list into a closed output is its own status.
    expect(closed(["keys", "list", ...d]).status).toBe(0);
  });

  it("standard output that fails otherwise (a full device) fails the command with one line", () => {
    const full = openSync("/dev/full", "w");
    try {
      const run = spawnSync(process.execPath, [...ENTRY, "openapi", "--data-dir", tempDir()], {
        env: { ...process.env, NODE_OPTIONS: "" },
        stdio: ["ignore", full, "pipe"],
        encoding: "utf8",
      });
      expect(run.stderr).toBe("error: standard output: no space left on device\n");
      expect(run.status).toBe(1);
      // A key's secret written there is lost too: said, with what to do.
      const { d } = initDir();
      const key = spawnSync(process.execPath, [...ENTRY, "keys", "create", "--account", "1", "--name", "full", ...d], {
        env: { ...process.env, NODE_OPTIONS: "" },
        stdio: ["ignore", full, "pipe"],
        encoding: "utf8",
      });
      // One line, saying why (it had been two: the device's failure, then the lost secret).
      expect(key.stderr).toBe(
        "error: what standard output shows once (a key's secret or a generated password) did not reach its reader " +
          "(no space left on device): the record was made; revoke that key or replace that password\n",
      );
      expect(key.status).toBe(1);
    } finally {
      closeSync(full);
    }
  });

  it("a server whose standard output and standard error both close (serve 2>&1 | reader) goes on answering", async () => {
    const server = await startServe(tempDir());
    try {
      server.child.stdout!.destroy();
      server.child.stderr!.destroy();
      for (let i = 0; i < 5; i++) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 200));
      expect(server.child.exitCode).toBeNull();
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      server.child.kill("SIGTERM");
      expect(await server.exited).toEqual({ code: 0, signal: null });
    }
  });

  it("a server whose request log's reader exits says so once on stderr and goes on answering", async () => {
    const server = await startServe(tempDir());
    try {
      server.child.stdout!.destroy();
      for (let i = 0; i < 5; i++) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      // The log lines of those requests met the closed pipe; the server is still up.
      await new Promise((r) => setTimeout(r, 200));
      expect(server.child.exitCode).toBeNull();
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect(server.output().match(/standard output closed/g)).toHaveLength(1);
      expect(server.output()).not.toMatch(/EPIPE|at .*\.ts:\d+/);
    } finally {
      server.child.kill("SIGTERM");
      expect(await server.exited).toEqual({ code: 0, signal: null });
    }
  });

  it("a first start whose standard error is closed writes its credentials to a 0600 file that a log line names", async () => {
    const dir = tempDir();
    const file = path.join(dir, "first-start-credentials.txt");
    const { child, exited, line } = await firstStartWithoutStderr(dir);
    try {
      expect(line).toMatchObject({ level: "error", file, error: "EPIPE" });
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const text = readFileSync(file, "utf8");
      expect(text).toMatch(/admin login: admin@localhost \/ password \S+ \(shown once\)/);
      const key = /API key \(read, write; shown once\): (svc_live_\w{32})\n/.exec(text)?.[1];
      expect(key, text).toBeDefined();
      // The key in the file is the key made.
      const keys = cli(["keys", "list", "--json", "--data-dir", dir]).json();
      expect(keys.map((k: { prefix: string }) => k.prefix)).toEqual([key!.slice(0, 13)]);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });

  it.each([
    ["closed (serve 2>&-)", "closed"],
    ["/dev/null (serve 2>/dev/null)", "null"],
  ] as const)(
    "a first start whose standard error is %s writes its credentials to the 0600 file too",
    async (_what, how) => {
      const dir = tempDir();
      const file = path.join(dir, "first-start-credentials.txt");
      const { child, exited, line } = await firstStartWithoutStderr(dir, how);
      try {
        expect(line).toMatchObject({ level: "error", file, error: "standard error is /dev/null" });
        expect(statSync(file).mode & 0o777).toBe(0o600);
        const text = readFileSync(file, "utf8");
        expect(text).toMatch(/admin login: admin@localhost \/ password \S+ \(shown once\)/);
        expect(text).toMatch(/API key \(read, write; shown once\): svc_live_\w{32}\n/);
      } finally {
        child.kill("SIGTERM");
      }
      expect(await exited).toBe(0);
    },
  );

  it("a first start whose standard error is a file (serve 2>log) shows them there only, and makes no credentials file", async () => {
    const dir = tempDir();
    const log = path.join(tempDir(), "serve.log");
    const fd = openSync(log, "w");
    const child = spawn(process.execPath, [...ENTRY, "serve", "--data-dir", dir, "--port", "0", "--workers", "1"], {
      env: { ...process.env, NODE_OPTIONS: "" },
      stdio: ["ignore", "ignore", fd],
    });
    closeSync(fd);
    onTestFinished(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    // The listening line comes after the credentials (printed once the server listens).
    for (let i = 0; i < 600 && !readFileSync(log, "utf8").includes("listening on"); i++)
      await new Promise((r) => setTimeout(r, 100));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    const text = readFileSync(log, "utf8");
    expect(text).toMatch(/API key \(read, write; shown once\): svc_live_\w{32}\n/);
    expect(() => statSync(path.join(dir, "first-start-credentials.txt"))).toThrow(/ENOENT/);
  });

  it("writes the credentials file anew: a symbolic link planted at its name is replaced, its target left alone", async () => {
    const dir = tempDir();
    const file = path.join(dir, "first-start-credentials.txt");
    // Another user's file, which the link would have had the credentials written into (and made readable to them).
    const victim = path.join(tempDir(), "theirs.txt");
    writeFileSync(victim, "theirs\n");
    symlinkSync(victim, file);
    const { child, exited, line } = await firstStartWithoutStderr(dir);
    try {
      expect(line).toMatchObject({ level: "error", file });
      expect(readFileSync(victim, "utf8")).toBe("theirs\n");
      expect(lstatSync(file).isSymbolicLink()).toBe(false);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, "utf8")).toMatch(/API key \(read, write; shown once\): svc_live_\w{32}\n/);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});
