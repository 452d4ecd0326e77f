import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, type ServerProcess, startServe, tempDir } from "../helpers/cli.js";
import { postInParts } from "../helpers/http-client.js";

describe("keys commands", () => {
  const dir = tempDir();
  const d = ["--data-dir", dir];
  let server: ServerProcess;

  beforeAll(async () => {
    expect(cli(["init", "--admin-email", "ops@example.test", ...d], { input: "s3cret-passw0rd\n" }).status).toBe(0);
    server = await startServe(dir);
  }, 60_000);
  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
  });

  it("issues a key as one JSON document, bound to the account's only workspace by default", () => {
    const run = cli(["keys", "create", "--account", "1", "--name", "ci", "--json", ...d]);
    expect(run.status).toBe(0);
    const k = run.json();
    expect(Object.keys(k).sort()).toEqual(["expires_at", "id", "key", "name", "scopes", "workspace_id"]);
    expect(k.key).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(k.scopes).toEqual(["read", "write"]);
    expect(k.workspace_id).toMatch(/^ws_/);
    const days = (Date.parse(k.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThan(90.1);
  });

  it("issues read-only, never-expiring keys and refuses admin with exit 2 and one line", () => {
    const ro = cli([
      "keys",
      "create",
      "--account",
      "1",
      "--name",
      "ro",
      "--scopes",
      "read",
      "--expires",
      "never",
      "--json",
      ...d,
    ]);
    expect(ro.json()).toMatchObject({ scopes: ["read"], expires_at: null });
    const write = cli(["keys", "create", "--account", "1", "--name", "w", "--scopes", "write", "--json", ...d]);
    expect(write.json().scopes).toEqual(["read", "write"]);
    const admin = cli(["keys", "create", "--account", "1", "--name", "x", "--scopes", "admin", ...d]);
    expect(admin.status).toBe(2);
    expect(admin.stderr.trim().split("\n")).toHaveLength(1);
    expect(admin.stdout).toBe("");
    const badExpiry = cli(["keys", "create", "--account", "1", "--name", "x", "--expires", "7d", ...d]);
    expect(badExpiry.status).toBe(2);
  });

  it.each([[""], ["  "], [","]])(
    "refuses an empty --scopes (%j) with exit 2 and one line, issuing nothing",
    (scopes) => {
      const before = cli(["keys", "list", "--json", ...d]).json().length;
      const run = cli(["keys", "create", "--account", "1", "--name", "empty", "--scopes", scopes, "--json", ...d]);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(/--scopes/);
      expect(cli(["keys", "list", "--json", ...d]).json()).toHaveLength(before);
    },
  );

  it("never lists a secret, and a revoke takes effect on the running server within 2 seconds", async () => {
    const k = cli(["keys", "create", "--account", "1", "--name", "to-revoke", "--json", ...d]).json();
    const auth = { authorization: `Bearer ${k.key}` };
    expect((await fetch(`${server.url}/api/v1/api-keys/current`, { headers: auth })).status).toBe(200);
    const list = cli(["keys", "list", "--json", ...d]);
    expect(list.stdout).not.toContain(k.key);
    expect(list.stdout).not.toContain(k.key.slice(13));
    expect(list.json().find((r: { id: string }) => r.id === k.id)).toMatchObject({
      name: "to-revoke",
      revoked_at: null,
    });
    expect(cli(["keys", "revoke", k.id, ...d]).status).toBe(0);
    const started = Date.now();
    let status = 200;
    while (status !== 401 && Date.now() - started < 2_000)
      status = (await fetch(`${server.url}/api/v1/api-keys/current`, { headers: auth })).status;
    expect(status).toBe(401);
  });

  it("a key revoked by the command line while a write's body arrives: the write is 401 and stores nothing", async () => {
    const k = cli(["keys", "create", "--account", "1", "--name", "slow-writer", "--json", ...d]).json();
    // Used first, so that the server's key cache holds it (another process's change is seen there within 250 ms).
    const auth = { authorization: `Bearer ${k.key}` };
    expect((await fetch(`${server.url}/api/v1/api-keys/current`, { headers: auth })).status).toBe(200);
    const body = JSON.stringify({ title: "late", content: "Some text." });
    const res = await postInParts(`${server.url}/api/v1/contents`, {
      body,
      firstPart: 5,
      headers: auth,
      // The revocation, then the rest of the body at once: before the cache's next look at the database.
      meanwhile: async () => {
        await sleep(50);
        expect(cli(["keys", "revoke", k.id, ...d]).status).toBe(0);
      },
    });
    expect(res.status, res.text).toBe(401);
    expect(JSON.parse(res.text).message).toBe("This API key has been revoked.");
    const reader = cli(["keys", "create", "--account", "1", "--name", "reader", "--json", ...d]).json();
    const list = await fetch(`${server.url}/api/v1/contents?limit=100`, {
      headers: { authorization: `Bearer ${reader.key}` },
    });
    expect((await list.json()).data.map((c: { title: string }) => c.title)).not.toContain("late");
  });

  it("rotates: a replacement with the same name, scopes and binding; the old key stays valid", async () => {
    const old = cli(["keys", "create", "--account", "1", "--name", "rot", "--scopes", "read", "--json", ...d]).json();
    const rotated = cli(["keys", "rotate", old.id, "--json", ...d]);
    expect(rotated.status).toBe(0);
    const fresh = rotated.json();
    expect(fresh).toMatchObject({ name: "rot", scopes: ["read"], workspace_id: old.workspace_id });
    expect(fresh.key).not.toBe(old.key);
    for (const key of [old.key, fresh.key]) {
      const res = await fetch(`${server.url}/api/v1/api-keys/current`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
    }
  });

  it("rotates with --revoke-old: the old key revoked now, or after a grace period; the new one names it", async () => {
    const listed = () => cli(["keys", "list", "--account", "1", "--json", ...d]).json() as Record<string, unknown>[];
    const now = cli(["keys", "create", "--account", "1", "--name", "rot-now", "--json", ...d]).json();
    const replacedNow = cli(["keys", "rotate", now.id, "--revoke-old", "--json", ...d]);
    expect(replacedNow.status, replacedNow.stderr).toBe(0);
    const later = cli(["keys", "create", "--account", "1", "--name", "rot-later", "--json", ...d]).json();
    const replacedLater = cli(["keys", "rotate", later.id, "--revoke-old=24h", "--json", ...d]);
    expect(replacedLater.status, replacedLater.stderr).toBe(0);
    const rows = listed();
    const row = (id: string) => rows.find((r) => r.id === id)!;
    expect(row(now.id)).toMatchObject({ status: "revoked" });
    expect(row(replacedNow.json().id)).toMatchObject({ status: "active", replaces_key_id: now.id });
    expect(row(later.id)).toMatchObject({ status: "active", revoked_at: null });
    const graceEnd = Date.parse(row(later.id).expires_at as string) - Date.now();
    expect(graceEnd).toBeGreaterThan(23 * 3_600_000);
    expect(graceEnd).toBeLessThanOrEqual(24 * 3_600_000);
    expect(row(replacedLater.json().id)).toMatchObject({ replaces_key_id: later.id });
    const table = cli(["keys", "list", "--account", "1", ...d]).stdout.split("\n");
    expect(table[0].split(/\s+/)).toEqual([
      "id",
      "acct",
      "name",
      "scope",
      "workspace",
      "status",
      "expires",
      "replaces",
    ]);
    expect(table.find((l) => l.startsWith(now.id))).toMatch(/\brevoked\b/);
    expect(table.find((l) => l.startsWith(replacedNow.json().id))).toContain(now.id);
    const bad = cli(["keys", "rotate", later.id, "--revoke-old=soon", ...d]);
    expect(bad.status).toBe(2);
  });

  it("lists keys in lines of at most 120 columns, the longest names cut (--json keeps them whole)", () => {
    const name = "a rather long key name, for a deployment that needs explaining".slice(0, 60);
    const k = cli(["keys", "create", "--account", "1", "--name", name, "--expires", "never", "--json", ...d]).json();
    cli(["keys", "rotate", k.id, ...d]);
    const lines = cli(["keys", "list", ...d])
      .stdout.trimEnd()
      .split("\n");
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(120);
    expect(lines.find((l) => l.startsWith(k.id))).toContain("a rather long k…");
    const json = cli(["keys", "list", "--json", ...d]).json() as { id: string; name: string }[];
    expect(json.find((r) => r.id === k.id)!.name).toBe(name);
  });

  it("revokes or rotates a key given by its secret (a leaked key), never printing the secret back", async () => {
    const leaked = cli(["keys", "create", "--account", "1", "--name", "leaked", "--json", ...d]).json();
    const rotated = cli(["keys", "rotate", leaked.key, "--json", ...d]);
    expect(rotated.status).toBe(0);
    expect(rotated.json()).toMatchObject({ name: "leaked", workspace_id: leaked.workspace_id });
    // `-` reads it from standard input: the secret stays out of argv and the shell's history.
    const piped = cli(["keys", "rotate", "-", "--json", ...d], { input: `${leaked.key}\n` });
    expect(piped.status, piped.stderr).toBe(0);
    expect(piped.json()).toMatchObject({ name: "leaked" });
    const empty = cli(["keys", "revoke", "-", ...d], { input: "" });
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain("error: standard input held no key");
    // As pasted from a request: an Authorization value, with spaces around it.
    const revoked = cli(["keys", "revoke", `  Bearer ${leaked.key} `, ...d]);
    expect(revoked.status).toBe(0);
    expect(revoked.stdout).toContain(`revoked ${leaked.id}`);
    expect(revoked.stdout + revoked.stderr).not.toContain(leaked.key);
    // Unknown: named by its shown prefix only.
    const unknown = `svc_live_${"Z".repeat(32)}`;
    const miss = cli(["keys", "revoke", unknown, ...d]);
    expect(miss.status).toBe(1);
    expect(miss.stderr).toBe(
      "error: no API key in this data directory matches the key given (svc_live_ZZZZ…): `content-service keys " +
        `list --data-dir ${dir}\` lists each key's prefix\n`,
    );
    // Whatever is not shaped like an id is never printed back (a secret in another case, half a paste).
    for (const arg of [leaked.key.toUpperCase(), ` ${leaked.key.slice(2)}`]) {
      const other = cli(["keys", "revoke", arg, ...d]);
      expect(other.status).toBe(1);
      expect(other.stderr).not.toContain(arg.trim().slice(13));
    }
  });

  it("keeps last_used_at current for a running server's keys", async () => {
    const k = cli(["keys", "create", "--account", "1", "--name", "used", "--json", ...d]).json();
    const res = await fetch(`${server.url}/api/v1/api-keys/current`, { headers: { authorization: `Bearer ${k.key}` } });
    const body = await res.json();
    expect(Date.parse(body.last_used_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("fails with exit 1 and one line for an unknown key or account", () => {
    const r = cli(["keys", "revoke", "key_unknown", ...d]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(cli(["keys", "create", "--account", "99", "--name", "x", ...d]).status).toBe(1);
  });
});
