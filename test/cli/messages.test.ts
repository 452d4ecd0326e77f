/**
 * What the command line tells an administrator beyond its result: a mistake named as such (a file given as the data
 * directory, a filter naming no account, a folder that is missing, a URL that would publish a password), and a
 * result that will not do what it seems to (a key of a plan without API access, limits where the hour binds, a
 * password that was not used).
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { shellWord } from "../../src/cli/output.js";
import { cli, ENTRY, initDir, tempDir } from "../helpers/cli.js";

describe("the command line's messages", () => {
  it("quote a path they suggest pasting into a command only where the shell needs it", () => {
    expect(shellWord("/var/lib/content-service")).toBe("/var/lib/content-service");
    expect(shellWord("/data/my data")).toBe("'/data/my data'");
    expect(shellWord("/data/it's")).toBe("'/data/it'\\''s'");
    expect(shellWord("/data/$HOME")).toBe("'/data/$HOME'");
  });

  it("--version prints the version (package.json's) and that it runs from source", () => {
    const { version } = JSON.parse(readFileSync(path.join(import.meta.dirname, "../../package.json"), "utf8"));
    for (const flag of ["--version", "-V"]) {
      const run = cli([flag]);
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(`${version} (from source, Node ${process.version})\n`);
    }
  });

  it("refuses a file as the data directory, for init as for the rest (exit 2)", () => {
    const file = path.join(tempDir(), "not-a-dir");
    writeFileSync(file, "");
    for (const args of [["init"], ["accounts", "list"], ["serve", "--port", "0"]]) {
      const run = cli([...args, "--data-dir", file]);
      expect(run.status, args[0]).toBe(2);
      expect(run.stderr.trim().split("\n").at(-1)).toBe(
        `error: ${file} is not a directory: --data-dir names the folder that holds content-service.db`,
      );
    }
    // From the variable, the line names it: the user gave no --data-dir to look for.
    for (const args of [["init"], ["keys", "list"]]) {
      const run = cli(args, { env: { CONTENT_SERVICE_DATA_DIR: file } });
      expect({ status: run.status, stderr: run.stderr }, args[0]).toEqual({
        status: 2,
        stderr:
          `error: ${file} (from CONTENT_SERVICE_DATA_DIR) is not a directory: --data-dir names the folder that holds ` +
          "content-service.db\n",
      });
    }
  });

  it("says when a bad value came from an environment variable, not the flag", () => {
    const dir = tempDir();
    const fromEnv = cli(["serve", "--data-dir", dir], { env: { CONTENT_SERVICE_PORT: "abc" } });
    expect(fromEnv.status).toBe(2);
    expect(fromEnv.stderr).toBe('error: --port must be 0–65535, got "abc" (from CONTENT_SERVICE_PORT)\n');
    const fromFlag = cli(["serve", "--data-dir", dir, "--port", "abc"], { env: { CONTENT_SERVICE_PORT: "abc" } });
    expect(fromFlag.stderr).toBe('error: --port must be 0–65535, got "abc"\n');
    const past = cli(["serve", "--data-dir", dir, "--port", "65536"]);
    expect(past.stderr).toBe('error: --port must be 0–65535, got "65536"\n');
  });

  it("names a missing folder or a directory given as a file to write", () => {
    const { d } = initDir();
    const missing = path.join(tempDir(), "nope", "x.json");
    const openapi = cli(["openapi", "--out", missing]);
    expect(openapi.status).toBe(1);
    expect(openapi.stderr).toBe(`error: ${missing}: no such file or directory (open)\n`);
    const folder = tempDir();
    const toFolder = cli(["openapi", "--out", folder]);
    expect(toFolder.status).toBe(2);
    expect(toFolder.stderr).toBe(`error: --out ${folder} is a directory: give a file name\n`);
    const backup = cli(["backup", "--out", path.join(path.dirname(missing), "b.db"), ...d]);
    expect(backup.status).toBe(1);
    expect(backup.stderr).toContain(`there is no folder ${path.dirname(missing)}`);
    expect(backup.stderr).not.toContain(".partial");
  });

  it("says what a backup is doing: copying, then checking", () => {
    const { d } = initDir();
    const run = cli(["backup", "--out", path.join(tempDir(), "b.db"), ...d]);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/backing up .*…\ncopied \d+ bytes; checking the copy…\n/);
  });

  it("accepts --json on openapi, whose output is JSON already", () => {
    for (const args of [
      ["openapi", "--json"],
      ["--json", "openapi"],
    ]) {
      const run = cli(args);
      expect(run.status, args.join(" ")).toBe(0);
      expect(JSON.parse(run.stdout).openapi).toMatch(/^3\.1/);
    }
  });

  it("fails a list filtered by an account that does not exist, as the other commands do", () => {
    const { dir, d } = initDir();
    for (const group of ["users", "keys", "workspaces"]) {
      const run = cli([group, "list", "--account", "99", ...d]);
      expect(run.status, group).toBe(1);
      expect(run.stderr).toBe(
        `error: no account 99 in this data directory: \`content-service accounts list --data-dir ${dir}\` lists the accounts\n`,
      );
    }
    expect(cli(["keys", "list", "--account", "1", ...d]).status).toBe(0);
  });

  it("names a record the data directory does not hold in one wording, with the list command that shows the others", () => {
    // A space in the folder's name: the list command is given quoted, as pasted.
    const dir = path.join(tempDir(), "data dir");
    const d = ["--data-dir", dir];
    expect(cli(["init", ...d]).status).toBe(0);
    const other = cli(["accounts", "create", "--name", "Other", "--plan", "business", "--json", ...d]).json();
    const word = shellWord(dir);
    const noAccount = `no account 99 in this data directory: \`content-service accounts list --data-dir ${word}\` lists the accounts`;
    const noWorkspace = `no workspace ws_nosuch in this data directory: \`content-service workspaces list --data-dir ${word}\` lists the workspaces`;
    const noKey = `no API key key_nosuch in this data directory: \`content-service keys list --data-dir ${word}\` lists the keys`;
    for (const [args, line] of [
      [["accounts", "set-plan", "99", "pro"], noAccount],
      [["accounts", "set-limits", "99", "--per-minute", "5"], noAccount],
      [["workspaces", "create", "--account", "99", "--name", "w"], noAccount],
      [["keys", "create", "--account", "99", "--name", "k"], noAccount],
      [["users", "create", "--account", "99", "--email", "u@x.test"], noAccount],
      [["workspaces", "set-default", "ws_nosuch"], noWorkspace],
      [["workspaces", "delete", "ws_nosuch"], noWorkspace],
      [["keys", "revoke", "key_nosuch"], noKey],
      [["keys", "rotate", "key_nosuch"], noKey],
      [
        ["keys", "create", "--account", "1", "--name", "k", "--workspace", other.default_workspace_id],
        `no workspace ${other.default_workspace_id} in account 1: \`content-service workspaces list --account 1 ` +
          `--data-dir ${word}\` lists account 1's workspaces`,
      ],
    ] as const) {
      const run = cli([...args, ...d], { input: "" });
      expect({ status: run.status, stderr: run.stderr }, args.join(" ")).toEqual({
        status: 1,
        stderr: `error: ${line}\n`,
      });
    }
  });

  it("issues a key of a plan without API access, saying it is refused until the plan changes", () => {
    const { d } = initDir();
    const account = cli(["accounts", "create", "--name", "Pro", "--plan", "pro", "--json", ...d]).json();
    const run = cli(["keys", "create", "--account", String(account.id), "--name", "k", "--json", ...d]);
    expect(run.status).toBe(0);
    expect(run.json().key).toMatch(/^svc_live_/);
    expect(run.stderr).toContain(`account ${account.id} is on the pro plan, which has no API access`);
    expect(cli(["keys", "create", "--account", "1", "--name", "fine", ...d]).stderr).toBe("");
    // A rotation there, and a plan change that takes API access from an account with keys, say it too.
    const rotated = cli(["keys", "rotate", run.json().id, "--json", ...d]);
    expect(rotated.status).toBe(0);
    expect(rotated.stderr).toContain("which has no API access: the new key is refused");
    const down = cli(["accounts", "set-plan", "1", "starter", ...d]);
    expect(down.status).toBe(0);
    expect(down.stderr).toContain("account 1 is on the starter plan, which has no API access: its 1 key is refused");
    expect(cli(["accounts", "set-plan", "1", "business", ...d]).stderr).toBe("");
  });

  it("notes the backup options that do nothing without --backup-schedule", () => {
    const { d } = initDir();
    // Stopped by a usage error of its own right after the note (so that no server starts).
    const run = cli(["serve", "--backup-keep", "3", "--llm-base-url", "http://127.0.0.1:9", ...d]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("note: --backup-keep does nothing without --backup-schedule");
  });

  it("notes limits where the hour's is the one that binds", () => {
    const { d } = initDir();
    const run = cli(["accounts", "set-limits", "1", "--per-minute", "100", "--per-hour", "10", ...d]);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe("note: 100/min is more than 10/hour: no key can use more than 10 requests in an hour\n");
    expect(cli(["accounts", "set-limits", "1", "--per-minute", "10", "--per-hour", "100", ...d]).stderr).toBe("");
    // A starter account's keys are refused: its limits hold its users' web sessions.
    expect(cli(["accounts", "set-plan", "1", "starter", ...d]).status).toBe(0);
    const starter = cli(["accounts", "set-limits", "1", "--per-minute", "2000", ...d]);
    expect(starter.stderr).toBe(
      "note: 2000/min is more than 100/hour: no web session can use more than 100 requests in an hour\n",
    );
  });

  it("says a password piped to an initialised directory was not used, and reads none", () => {
    const { d } = initDir();
    const run = cli(["init", ...d], { input: "a-new-password-1\n" });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("already initialised");
    expect(run.stderr).toBe(
      "note: standard input (not read) was not used: the data directory is initialised already " +
        "(`accounts create` and `users create` add others)\n",
    );
  });

  it("names the options init on an initialised directory did not use", () => {
    const { d } = initDir();
    const run = cli(["init", "--plan", "pro", "--admin-email", "x@y.test", "--account-name", "Other", ...d], {
      input: "a-new-password-1\n",
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("already initialised");
    expect(run.stderr).toBe(
      "note: --account-name, --plan, --admin-email and standard input (not read) were not used: the data directory " +
        "is initialised already (`accounts create` and `users create` add others)\n",
    );
    expect(cli(["accounts", "list", "--json", ...d]).json()).toMatchObject([
      { name: "Default account", plan: "business" },
    ]);
  });

  it("init on an initialised directory and users create for a missing account or a taken email read no password", async () => {
    const { dir, d } = initDir();
    // Standard input that stays open and sends nothing (`sleep 60 | …`): the old code waited on it for ever.
    const withOpenStdin = async (args: string[]) => {
      const child = spawn(process.execPath, [...ENTRY, ...args], {
        env: { ...process.env, NODE_OPTIONS: "" },
        stdio: ["pipe", "pipe", "pipe"],
      });
      onTestFinished(() => {
        child.kill("SIGKILL");
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (x) => {
        stdout += x;
      });
      child.stderr.on("data", (x) => {
        stderr += x;
      });
      const status = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
      return { status, stdout, stderr };
    };
    const init = await withOpenStdin(["init", ...d]);
    expect(init.status, init.stderr).toBe(0);
    expect(init.stdout).toContain("already initialised");
    expect(init.stderr).not.toContain("reading");
    const missing = await withOpenStdin(["users", "create", "--account", "99", "--email", "u@x.test", ...d]);
    expect({ status: missing.status, stderr: missing.stderr }).toEqual({
      status: 1,
      stderr:
        "error: no account 99 in this data directory: `content-service accounts list --data-dir " +
        `${dir}\` lists the accounts\n`,
    });
    const taken = await withOpenStdin(["users", "create", "--account", "1", "--email", "admin@localhost", ...d]);
    expect({ status: taken.status, stderr: taken.stderr }).toEqual({
      status: 1,
      stderr: "error: A user with email admin@localhost exists.\n",
    });
  });
});
