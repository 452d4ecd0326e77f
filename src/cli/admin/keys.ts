/** `keys`: issue, list, revoke and rotate API keys; a key is named by its id or by its secret. */
import { type Command, Option } from "commander";
import { type ApiKeyRow, storedScopes } from "../../db/apikeys.js";
import type { Store } from "../../db/store.js";
import { issueKey, revokeKey, rotateKey } from "../../domain/admin.js";
import {
  displayPrefix,
  EXPIRY_CHOICES,
  type ExpiryChoice,
  hashKey,
  KEY_ID_PATTERN,
  KEY_PREFIX,
  keyStatus,
} from "../../domain/apikeys.js";
import { apiKeyView } from "../../domain/views/apikeys.js";
import { idArg, nameArg, positiveInt, readStdinIfPiped } from "../args.js";
import { withReadStore, withStore } from "../database.js";
import { CliError, UsageError } from "../errors.js";
import { printable, printingSecret, printJson, printTable, refuseSecretToNull, wantsJson } from "../output.js";
import { ACTOR, accountOf, noteRefusedKeys, notFound, requireListedAccount, workspaceOf } from "./lookup.js";

/** Adds `keys` and its subcommands to the program. */
export function registerKeysCommands(program: Command): void {
  const keys = program.command("keys").description("API keys: issue, list, revoke and rotate them");
  addKeysCreate(keys);
  addKeysList(keys);
  addKeysRevoke(keys);
  addKeysRotate(keys);
}

/** Adds `keys create`: the secret is printed once. */
function addKeysCreate(keys: Command): void {
  keys
    .command("create")
    .description("Issue an API key; the secret is printed once")
    .requiredOption("--account <id>", "account id", positiveInt("--account"))
    .requiredOption("--name <name>", "key name (1 to 100 characters)", nameArg("--name"))
    .option("--scopes <list>", "read, or read,write: write includes read (default: read,write)", parseScopes)
    .option(
      "--workspace <id>",
      "bind the key to this workspace (default: unbound, or the only workspace)",
      idArg("--workspace"),
    )
    .addOption(new Option("--expires <when>", "how long the key stays valid").choices(EXPIRY_CHOICES).default("90d"))
    .option("--json", 'print the key, its secret included, as {"id","key","name","scopes","workspace_id","expires_at"}')
    .action(
      (
        opts: { account: number; name: string; scopes?: string[]; workspace?: string; expires: ExpiryChoice },
        cmd: Command,
      ) =>
        withStore(cmd, (store) => {
          accountOf(cmd, store, opts.account);
          if (opts.workspace !== undefined) workspaceOf(cmd, store, opts.workspace, opts.account);
          refuseSecretToNull("the key's secret");
          const { row, secret } = issueKey(store, ACTOR, {
            accountId: opts.account,
            name: opts.name,
            scopes: opts.scopes,
            workspaceId: opts.workspace,
            expires: opts.expires,
          });
          // Issued all the same (the plan may change later), but the administrator is told it cannot work yet.
          noteRefusedKeys(store.accounts.byId(opts.account)!, "this key is");
          printIssued(cmd, apiKeyView(row), secret);
        }),
    );
}

/** Adds `keys list` (never the secrets). */
function addKeysList(keys: Command): void {
  keys
    .command("list")
    .description("List keys (never their secrets)")
    .option("--account <id>", "only this account", positiveInt("--account"))
    .option("--json", "print as JSON")
    .action((opts: { account?: number }, cmd: Command) =>
      withReadStore(cmd, (store) => {
        requireListedAccount(cmd, store, opts.account);
        const rows = store.apiKeys.list(opts.account);
        if (wantsJson(cmd)) return printJson(rows.map((k) => ({ ...apiKeyView(k), status: keyStatus(k, Date.now()) })));
        printTable(
          rows.map((k) => keyListRow(k, Date.now())),
          ["id", "acct", "name", "scope", "workspace", "status", "expires", "replaces"],
        );
      }),
    );
}

/** Characters of a name `keys list` shows before an ellipsis; --json has the whole name. */
const LISTED_NAME_CHARS = 16;

/**
 * A key as a line of `keys list`, made to fit 120 columns with the longest ids (test/cli/keys.test.ts "120
 * columns"): scopes as r or rw, the expiry's date only, names cut at 16 characters; the prefix, last use and
 * revocation time are left to --json, which prints every field and the status.
 */
function keyListRow(k: ApiKeyRow, nowMs: number): Record<string, string> {
  const name = [...k.name];
  return {
    id: k.id,
    acct: String(k.account_id),
    name: name.length > LISTED_NAME_CHARS ? `${name.slice(0, LISTED_NAME_CHARS - 1).join("")}…` : k.name,
    scope: storedScopes(k.scopes).includes("write") ? "rw" : "r",
    workspace: k.workspace_id ?? "all",
    status: keyStatus(k, nowMs),
    expires: k.expires_at?.slice(0, 10) ?? "never",
    replaces: k.replaces_key_id ?? "-",
  };
}

/** Adds `keys revoke`. */
function addKeysRevoke(keys: Command): void {
  keys
    .command("revoke")
    .description("Revoke a key (a running server refuses it within 250 ms)")
    .argument("<key>", KEY_ARGUMENT, idArg("the key"))
    .option("--json", "print the key as JSON")
    .action(async (given: string, _opts, cmd: Command) => {
      const id = await keyArgument(given);
      return withStore(cmd, (store) => {
        const row = revokeKey(store, ACTOR, keyByIdOrSecret(cmd, store, id));
        if (wantsJson(cmd)) return printJson(apiKeyView(row));
        process.stdout.write(`revoked ${row.id} at ${row.revoked_at}\n`);
      });
    });
}

/** Adds `keys rotate`: a replacement recording the key it replaces; the old key valid until revoked, or --revoke-old. */
function addKeysRotate(keys: Command): void {
  keys
    .command("rotate")
    .description(
      "Issue a replacement with the same name, scopes and binding, which records the key it replaces; the old key " +
        "stays valid until revoked (a day at most when the account is at its cap of active keys), or --revoke-old",
    )
    .argument("<key>", KEY_ARGUMENT, idArg("the key"))
    .option(
      "--revoke-old [after]",
      "revoke the old key now, or after a grace period (30m, 24h, 7d: its expiry is brought forward to then)",
      graceArg,
    )
    .option("--json", "print the new key as JSON")
    .action(async (given: string, opts: { revokeOld?: number | true }, cmd: Command) => {
      const id = await keyArgument(given);
      return withStore(cmd, (store) => {
        const old = keyByIdOrSecret(cmd, store, id);
        // A revoked key was taken out of use on purpose: rotating it would put a live copy back.
        if (old.revoked_at !== null) throw new CliError(`key ${old.id} is revoked: issue a new one with keys create`);
        refuseSecretToNull("the new key's secret");
        const revokeOldAfterMs = opts.revokeOld === true ? 0 : opts.revokeOld;
        const { row, secret } = rotateKey(store, ACTOR, old, Date.now(), { revokeOldAfterMs });
        noteRefusedKeys(store.accounts.byId(row.account_id)!, "the new key is");
        printIssued(cmd, apiKeyView(row), secret);
      });
    });
}

/** An issued key as --json prints it, its secret included. */
function issuedKeyJson(row: ReturnType<typeof apiKeyView>, secret: string) {
  return {
    id: row.id,
    key: secret,
    name: row.name,
    scopes: row.scopes,
    workspace_id: row.workspace_id,
    expires_at: row.expires_at,
  };
}

/** Prints an issued key with its secret, shown once. */
function printIssued(cmd: Command, row: ReturnType<typeof apiKeyView>, secret: string): void {
  printingSecret();
  if (wantsJson(cmd)) {
    printJson(issuedKeyJson(row, secret));
    return;
  }
  process.stdout.write(
    `key ${row.id} "${printable(row.name)}" scopes=${row.scopes.join(",")} workspace=${row.workspace_id ?? "all"} expires=${row.expires_at ?? "never"}\n` +
      `secret (shown once, store it now): ${secret}\n`,
  );
}

const GRACE_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A --revoke-old grace period: a whole number of minutes, hours or days (30m, 24h, 7d), up to 365 days. */
function graceArg(value: string): number {
  const m = /^(\d{1,6})([mhd])$/.exec(value.trim());
  const ms = m ? Number(m[1]) * GRACE_UNITS[m[2]] : Number.NaN;
  if (!(ms >= 0 && ms <= 365 * GRACE_UNITS.d))
    throw new UsageError(`--revoke-old takes a grace period such as 30m, 24h or 7d (up to 365d), not "${value}"`);
  return ms;
}

/** A --scopes value: read, or read,write; admin is reserved. */
function parseScopes(value: string): string[] {
  const list = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  // An empty list is a mistake (an unset shell variable), not a request for the default read,write.
  if (list.length === 0) throw new UsageError("--scopes names no scope (allowed: read, read,write)");
  for (const s of list) {
    if (s === "admin") throw new UsageError("the admin scope is reserved and not issued in v1");
    if (s !== "read" && s !== "write") throw new UsageError(`unknown scope "${s}" (allowed: read, read,write)`);
  }
  return list;
}

/** The help of the key argument of `keys revoke` and `keys rotate`. */
const KEY_ARGUMENT =
  "key id (key_…), or the key itself (svc_live_…: a leaked key is found by its hash, and never printed back); " +
  "- reads it from standard input, so that a secret stays out of the shell's history";

/** The key argument: as given, or read from standard input for `-`. */
async function keyArgument(given: string): Promise<string> {
  if (given !== "-") return given;
  if (process.stdin.isTTY) throw new UsageError("- reads the key from standard input: pipe it in (e.g. < key.txt)");
  const read = await readStdinIfPiped("the key");
  if (read === undefined) throw new UsageError("standard input held no key");
  return read;
}

/**
 * A key named by its id, or by its secret (what an administrator holding a leaked key has): the secret is looked up
 * by its hash, as the server does, and never repeated in an error. A secret comes as pasted: with spaces around it,
 * an `Authorization: Bearer` before it, in another case. Only an argument shaped like an id is ever printed back.
 */
function keyByIdOrSecret(cmd: Command, store: Store, arg: string): ApiKeyRow {
  if (KEY_ID_PATTERN.test(arg)) {
    const row = store.apiKeys.byId(arg);
    if (!row) throw notFound(cmd, `API key ${arg} in this data directory`, "keys list", "the keys");
    return row;
  }
  const secret = new RegExp(`${KEY_PREFIX}\\S*`, "i").exec(arg)?.[0];
  const row = secret === undefined ? undefined : store.apiKeys.byHash(hashKey(secret));
  if (row) return row;
  if (secret === undefined)
    throw notFound(
      cmd,
      "API key has that id (ids look like key_…; the key itself, svc_live_…, is also taken)",
      "keys list",
      "the keys",
    );
  throw notFound(
    cmd,
    `API key in this data directory matches the key given (${displayPrefix(secret)}…)`,
    "keys list",
    "each key's prefix",
  );
}
