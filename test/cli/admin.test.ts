import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/program.js";
import { cli, tempDir } from "../helpers/cli.js";

function walk(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap(walk)];
}

describe("admin CLI", () => {
  it("gives every command a description and help", () => {
    const all = walk(buildProgram());
    expect(all.length).toBeGreaterThan(20);
    for (const c of all) {
      expect(c.description(), c.name()).not.toBe("");
      expect(c.helpInformation()).toContain("Usage:");
    }
    const run = cli(["accounts", "set-limits", "--help"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("--per-minute");
  });

  it("init is idempotent and reads the admin password from stdin", () => {
    const dir = tempDir();
    const first = cli(["init", "--json", "--data-dir", dir, "--plan", "agency", "--admin-email", "a@x.test"], {
      input: "pw-from-stdin-1\n",
    });
    expect(first.status).toBe(0);
    expect(first.json()).toMatchObject({
      created: true,
      account_id: 1,
      admin_email: "a@x.test",
      generated_password: null,
    });
    expect(existsSync(path.join(dir, "content-service.db"))).toBe(true);
    const again = cli(["init", "--json", "--data-dir", dir]);
    expect(again.json()).toEqual({ created: false });
    const accounts = cli(["accounts", "list", "--json", "--data-dir", dir]).json();
    expect(accounts).toHaveLength(1);
    expect(accounts[0].plan).toBe("agency");
  });

  it("manages accounts, plans, limits, users and workspaces", () => {
    const dir = tempDir();
    const d = ["--data-dir", dir];
    cli(["init", ...d]);
    const acct = cli(["accounts", "create", "--name", "Agency Two", "--plan", "agency", "--json", ...d]);
    expect(acct.status).toBe(0);
    const id = String(acct.json().id);
    expect(cli(["accounts", "set-plan", id, "pro", "--json", ...d]).json().plan).toBe("pro");
    expect(cli(["accounts", "set-plan", id, "platinum", ...d]).status).toBe(2);
    const limited = cli([
      "accounts",
      "set-limits",
      id,
      "--per-minute",
      "5000",
      "--per-hour",
      "100000",
      "--json",
      ...d,
    ]).json();
    expect(limited).toMatchObject({ rate_per_minute: 5000, rate_per_hour: 100000 });
    expect(cli(["accounts", "set-limits", id, "--reset", "--json", ...d]).json()).toMatchObject({
      rate_per_minute: null,
      rate_per_hour: null,
    });
    expect(cli(["accounts", "set-limits", id, ...d]).status).toBe(2);
    expect(cli(["accounts", "set-limits", id, "--per-minute", "-3", ...d]).status).toBe(2);

    const user = cli(["users", "create", "--account", id, "--email", "m@two.test", "--json", ...d]);
    expect(user.status).toBe(0);
    expect(user.json()).toMatchObject({ email: "m@two.test", role: "member" });
    expect(user.json().generated_password).toMatch(/\S{12,}/);
    expect(user.stdout).not.toContain("scrypt$");
    expect(cli(["users", "create", "--account", id, "--email", "m@two.test", ...d]).status).toBe(1);
    expect(cli(["users", "list", "--json", "--account", id, ...d]).json()).toHaveLength(1);

    const ws = cli(["workspaces", "create", "--account", id, "--name", "Blog", "--json", ...d]).json();
    expect(ws.id).toMatch(/^ws_/);
    expect(ws.is_default).toBe(false);
    const list = cli(["workspaces", "list", "--account", id, "--json", ...d]).json();
    expect(list).toHaveLength(2);
    // Two workspaces: a key with no --workspace is unbound.
    cli(["accounts", "set-plan", id, "agency", ...d]);
    const unbound = cli(["keys", "create", "--account", id, "--name", "u", "--json", ...d]).json();
    expect(unbound.workspace_id).toBeNull();
    const bound = cli(["keys", "create", "--account", id, "--name", "b", "--workspace", ws.id, "--json", ...d]).json();
    expect(bound.workspace_id).toBe(ws.id);
    // What went with it is said: here the one key bound to it.
    const deleted = cli(["workspaces", "delete", ws.id, "--yes", "--json", ...d]);
    expect(deleted.status).toBe(0);
    expect(deleted.json()).toEqual({
      id: ws.id,
      deleted: true,
      removed: { contents: 0, memories: 0, reference_materials: 0, conversions: 0, api_keys: 1 },
    });
    expect(cli(["workspaces", "list", "--account", id, "--json", ...d]).json()).toHaveLength(1);
    expect(
      cli(["keys", "list", "--account", id, "--json", ...d])
        .json()
        .map((k: { id: string }) => k.id),
    ).not.toContain(bound.id);
  });

  it("shows names with control or bidirectional characters as escapes in its tables: no escape sequence, no fake row", () => {
    const dir = tempDir();
    const d = ["--data-dir", dir];
    cli(["init", ...d]);
    // A name an API user chose (workspace names follow the API's rules), as the operator's table shows it.
    const name = "ok\u001b[31mRED\nws_fake  1  Fake\u202e\\x1b";
    const created = cli(["accounts", "create", "--name", name, "--plan", "business", ...d]);
    expect(created.status).toBe(0);
    expect([...created.stdout].filter((c) => c === "\u001b" || c === "\u202e")).toEqual([]);
    const list = cli(["accounts", "list", ...d]);
    expect(list.status).toBe(0);
    expect([...list.stdout].filter((c) => c === "\u001b" || c === "\u202e")).toEqual([]);
    // A backslash in the name itself is doubled: its text "\x1b" is not taken for an escaped control character.
    expect(list.stdout).toContain("ok\\x1b[31mRED\\nws_fake  1  Fake\\u202e\\\\x1b");
    expect(list.stdout.trim().split("\n")).toHaveLength(3);
    // JSON keeps the name as it is.
    expect(cli(["accounts", "list", "--json", ...d]).json()[1].name).toBe(name);
  });

  it("prints the OpenAPI document, applies migrations and refuses unknown commands with exit 2", () => {
    const dir = tempDir();
    // The runner's own shell may set serve's variables: the defaults are checked without them.
    const unset = {
      CONTENT_SERVICE_HOST: undefined,
      CONTENT_SERVICE_PORT: undefined,
      CONTENT_SERVICE_PUBLIC_URL: undefined,
      CONTENT_SERVICE_STAGING_URL: undefined,
    };
    const doc = cli(["openapi"], { env: unset }).json();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.servers.map((s: { url: string }) => s.url)).toEqual([
      "http://127.0.0.1:8080",
      "http://staging.localhost:8080",
    ]);
    // serve's address and port, from its variables or flags, as serve's own description names them.
    const moved = cli(["openapi"], {
      env: { ...unset, CONTENT_SERVICE_HOST: "10.0.0.5", CONTENT_SERVICE_PORT: "9000" },
    }).json();
    expect(moved.servers.map((s: { url: string }) => s.url)).toEqual(["http://10.0.0.5:9000", "http://10.0.0.5:9000"]);
    const flags = cli(["openapi", "--port", "81", "--public-url", "https://api.example.test"], { env: unset }).json();
    expect(flags.servers.map((s: { url: string }) => s.url)).toEqual([
      "https://api.example.test",
      "http://staging.localhost:81",
    ]);
    // migrate needs a database (init makes one, migrated): a mistyped directory must not get a fresh one.
    expect(cli(["migrate", "--json", "--data-dir", dir]).status).toBe(1);
    expect(cli(["init", "--data-dir", dir]).status).toBe(0);
    expect(cli(["migrate", "--json", "--data-dir", dir]).json().applied).toEqual([]);
    const bad = cli(["frobnicate"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
  });
});
