/**
 * What a command is given: argument and option parsers that fail as usage errors (the HTTP admin API's rules where
 * one exists), an option named as the user gave it, and a password read from standard input.
 */
import net from "node:net";
import type { Command } from "commander";
import * as v from "valibot";
import {
  Email,
  KeyCap,
  localPartBytes,
  localPartFits,
  MAX_EMAIL_LENGTH,
  MAX_EMAIL_LOCAL_PART,
  Password,
  RateLimit,
  RecordName,
  StorageQuota,
} from "../http/admin-rules.js";
import { charLength } from "../runtime/chars.js";
import { UsageError } from "./errors.js";
import { printable } from "./output.js";

/** Parses a positive integer argument or fails as a usage error. */
export function positiveInt(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1)
      throw new UsageError(`${name} must be a positive whole number, got "${printable(value)}"`);
    return Number(value);
  };
}

/**
 * Reads all of stdin when it is not a terminal (for passwords); undefined on a terminal. Says so on stderr first: a
 * stdin left open by ssh without -t or `docker exec -i` would otherwise wait in silence.
 */
export async function readStdinIfPiped(what = "the password"): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  process.stderr.write(`reading ${what} from standard input…\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
  return text.length > 0 ? text : undefined;
}

/**
 * Refuses an empty or blank value (what an unset shell variable gives) as the usage error `NAME is empty: HINT`; the
 * hint is each caller's, as what to give differs (an id, a file name, or also - for standard output).
 */
export function refuseBlank(name: string, value: string, hint: string): void {
  if (value.trim() === "") throw new UsageError(`${name} is empty: ${hint}`);
}

/**
 * An id argument (a workspace's, a key's): not empty or blank. An unset shell variable (`keys revoke "$KEY"`) is a
 * usage error (exit 2), not an id to look up and answer "no API key has that id" (exit 1).
 */
export function idArg(name: string) {
  return (value: string): string => {
    refuseBlank(name, value, "give one (an unset shell variable?)");
    return value;
  };
}

/** The rules of the HTTP admin API (http/admin-rules.ts), as argument parsers that fail as usage errors. */
export function nameArg(name: string) {
  return (value: string): string => {
    const r = v.safeParse(RecordName, value);
    if (!r.success)
      throw new UsageError(
        `${name} must be 1 to 100 characters (not counting spaces around it), got "${printable(value)}"`,
      );
    return r.output;
  };
}

/** A rate limit: a whole number from 1 to 1,000,000,000, as the HTTP admin API accepts. */
export function limitArg(name: string) {
  return (value: string): number => {
    const r = /^\d+$/.test(value) ? v.safeParse(RateLimit, Number(value)) : undefined;
    if (!r?.success)
      throw new UsageError(`${name} must be a whole number from 1 to 1000000000, got "${printable(value)}"`);
    return r.output;
  };
}

/** An active-key cap: a whole number from 1 to 100,000, as the HTTP admin API accepts. */
export function keyCapArg(name: string) {
  return (value: string): number => {
    const r = /^\d+$/.test(value) ? v.safeParse(KeyCap, Number(value)) : undefined;
    if (!r?.success) throw new UsageError(`${name} must be a whole number from 1 to 100000, got "${printable(value)}"`);
    return r.output;
  };
}

const BYTE_UNITS: Record<string, number> = { "": 1, B: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, TiB: 2 ** 40 };

/**
 * A size in bytes, whole or with a binary unit (`500MiB`, `10GiB`), from 1 byte to 1 PiB. Decimal units (MB, GB)
 * are refused rather than guessed at, since a quota off by 7% is a surprise found late.
 */
export function sizeArg(name: string) {
  return (value: string): number => {
    const m = /^(\d+(?:\.\d+)?)\s*(B|KiB|MiB|GiB|TiB)?$/.exec(value.trim());
    const bytes = m ? Math.round(Number(m[1]) * BYTE_UNITS[m[2] ?? ""]) : Number.NaN;
    const r = v.safeParse(StorageQuota, bytes);
    if (!r.success)
      throw new UsageError(
        `${name} must be a size from 1 byte to 1 PiB, in bytes or with KiB, MiB, GiB or TiB (e.g. 10GiB), got "${printable(value)}"`,
      );
    return r.output;
  };
}

/** An email address, as the HTTP admin API accepts it. */
export function checkEmail(value: string, name = "--email"): string {
  const r = v.safeParse(Email, value);
  if (r.success) return r.output;
  // The rule that failed, when it is not the address's shape: a shape that looks right is otherwise a puzzle.
  const issue = r.issues[0];
  if (issue.type === "max_length")
    throw new UsageError(
      `${name} is too long: at most ${MAX_EMAIL_LENGTH} bytes of UTF-8, got ${Buffer.byteLength(value.trim().normalize("NFC"))}`,
    );
  if (issue.type === "check" && "requirement" in issue && issue.requirement === localPartFits)
    throw new UsageError(
      `${name}'s local part (before the @) is too long: at most ${MAX_EMAIL_LOCAL_PART} bytes of UTF-8, got ${localPartBytes(value.trim().normalize("NFC"))}`,
    );
  if (issue.type === "check") {
    // Named by its code point: printed, a zero-width space or a soft hyphen is invisible.
    const c = /[\p{Cc}\p{Cf}]/u.exec(value)?.[0] ?? "";
    const code = `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
    throw new UsageError(
      `${name} holds ${code}, a control or format character (such as a zero-width space): not an email address`,
    );
  }
  throw new UsageError(`${name}: "${printable(value)}" is not an email address`);
}

/** A password given on stdin, as the HTTP admin API accepts it (8 to 1024 characters). */
export function checkPassword(value: string | undefined): string | undefined {
  if (value !== undefined && !v.safeParse(Password, value).success)
    throw new UsageError(`the password from standard input must be 8 to 1024 characters, got ${charLength(value)}`);
  return value;
}

/** An http(s) URL for the description's servers (--public-url, --staging-url). */
export function serverUrlArg(name: string) {
  return (value: string): string => {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {}
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "")
      // Shown without a user name or password it may carry.
      throw new UsageError(`${name} must be an http(s) URL, got "${value.replace(/\/\/[^/@]*@/, "//")}"`);
    // The description is served without authentication: a user name or password in it would be published.
    if (url.username !== "" || url.password !== "")
      throw new UsageError(
        `${name} must not carry a user name or password (user:password@): the description is public`,
      );
    // Paths are joined to the URL as given (the description's servers, upgrade_action, verification_uri, Location):
    // a query or fragment would end up before them (https://host/?x=1/api/v1/...), and a space or control character
    // would stand raw in the description's servers.
    if (/[?#]/.test(value))
      throw new UsageError(`${name} must not have a query or fragment (?, #): API paths are added after it`);
    if (/[\s\p{Cc}]/u.test(value)) throw new UsageError(`${name} must not hold a space or control character`);
    return value;
  };
}

/**
 * A whole number from `min` to `max` (`--workers`), or a usage error naming the range: in words by default, or as
 * `range` says it.
 */
export function intInRange(name: string, min: number, max: number, range = `a whole number from ${min} to ${max}`) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
      throw new UsageError(`${name} must be ${range}, got "${printable(value)}"`);
    return Number(value);
  };
}

/** A DNS name (RFC 1123): labels of 1 to 63 letters, digits and hyphens, not starting or ending with one. */
const HOST_NAME =
  /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/**
 * A --host value: an IP address (an IPv6 one also in brackets, as in a URL, given without them) or a host name.
 * Anything else (`localhost:8080`, `http://x`, an empty variable) is refused here, before the data directory is
 * opened, rather than by listen as ENOTFOUND.
 */
export function hostArg(value: string): string {
  const bare = /^\[.*\]$/.test(value) ? value.slice(1, -1) : value;
  // A dotted all-numeric name is a mistyped IPv4 address (999.1.1.1), not a name: no top-level domain is numeric.
  const name = HOST_NAME.test(value) && !/^\d+(\.\d*)+$/.test(value);
  if (net.isIP(bare) === 6 || (bare === value && (net.isIP(value) === 4 || name))) return bare;
  throw new UsageError(`--host must be an IP address or a host name, got "${printable(value)}"`);
}

/**
 * An option as the user gave it, for a message: `--port 8080`, with `(from CONTENT_SERVICE_PORT)` when the value
 * came from that variable, or without a value (`--llm-model`) when `withValue` is false.
 */
export function givenOption(cmd: Command, key: string, withValue = true): string {
  const option = cmd.options.find((o) => o.attributeName() === key);
  if (!option) throw new Error(`no option ${key}`);
  const value = cmd.getOptionValue(key);
  const shown = withValue && value !== undefined ? ` ${printable(String(value))}` : "";
  const from = cmd.getOptionValueSource(key) === "env" && option.envVar ? ` (from ${option.envVar})` : "";
  return `${option.long}${shown}${from}`;
}

/** A --port value: 0 to 65535, said as ports are. */
export const portArg = intInRange("--port", 0, 65535, "0–65535");
