/**
 * The rules administrative input follows, whether it comes over HTTP (routes/admin.ts, routes/apikeys.ts,
 * routes/workspaces.ts) or from the command line (cli/*.ts): one definition, so that neither accepts what the other
 * refuses.
 */
import { domainToASCII } from "node:url";
import * as v from "valibot";
import { describedAs, describedCheck, maxBytes, maxChars, minChars } from "./schemas.js";

/** The longest name of an account, workspace or key. */
export const MAX_NAME_LENGTH = 100;
/** The highest rate-limit override (requests per minute or per hour). */
export const MAX_RATE_LIMIT = 1_000_000_000;
/** The highest override of an account's active-key cap. */
export const MAX_KEY_CAP = 100_000;
/** The highest storage quota an account may be given, in bytes (1 PiB). */
export const MAX_STORAGE_BYTES = 2 ** 50;
/** A password's shortest and longest length. */
export const MIN_PASSWORD_LENGTH = 8;
/** The longest password accepted, which bounds the work of hashing it. */
export const MAX_PASSWORD_LENGTH = 1024;

/** The name of an account, workspace or API key: trimmed, 1 to 100 characters. */
export const RecordName = v.pipe(v.string(), v.trim(), minChars(1), maxChars(MAX_NAME_LENGTH));
/** A rate-limit override: a whole number from 1 to 1,000,000,000. */
export const RateLimit = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_RATE_LIMIT));
/** An active-key cap override: a whole number from 1 to 100,000. */
export const KeyCap = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_KEY_CAP));
/** A storage quota override in bytes: a whole number from 1 to 2^50 (1 PiB). */
export const StorageQuota = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_STORAGE_BYTES));
/**
 * The longest email address, in bytes of UTF-8: RFC 5321's path limit (§4.5.3.1.3, 256 octets) less its angle
 * brackets. Octets, not characters: an address in UTF-8 (RFC 6531) of 200 characters may be over it.
 */
export const MAX_EMAIL_LENGTH = 254;
/**
 * The longest local part of an email address (before the `@`), in bytes of UTF-8: RFC 5321 §4.5.3.1.1 (64 octets),
 * which RFC 6531 keeps for UTF-8 addresses. A mail server may refuse an address past it, whatever its whole length.
 */
export const MAX_EMAIL_LOCAL_PART = 64;
/** The bytes of UTF-8 of an address's local part: what comes before its `@` (all of it if it has none). */
export function localPartBytes(address: string): number {
  const at = address.indexOf("@");
  return Buffer.byteLength(at < 0 ? address : address.slice(0, at), "utf8");
}
/** Whether an address's local part is within MAX_EMAIL_LOCAL_PART (Email's check; the CLI names it in its message). */
export const localPartFits = (address: string): boolean => localPartBytes(address) <= MAX_EMAIL_LOCAL_PART;
/**
 * The longest label of an email address's domain (a part between its dots), in octets: RFC 1035 §2.3.4 (63), which
 * RFC 5321 §4.5.3.1.2 takes for mail. A mail server or resolver refuses a domain past it; the domain's own 255 is
 * within the address's 254 bytes.
 */
export const MAX_EMAIL_DOMAIN_LABEL = 63;
/**
 * A domain label's length in octets as DNS carries it: an ASCII label's characters; a label with other characters
 * its A-label's (`xn--…`, RFC 5890, `aLabel`), which may be far shorter than its UTF-8 (22 CJK characters: 66 bytes,
 * an A-label of 28 when they repeat one), else, where it has none (not a valid IDN label), its bytes of UTF-8.
 */
export function domainLabelOctets(label: string): { octets: number; aLabel: boolean } {
  if (/^\p{ASCII}*$/u.test(label)) return { octets: label.length, aLabel: false };
  const ascii = domainToASCII(label);
  return ascii ? { octets: ascii.length, aLabel: true } : { octets: Buffer.byteLength(label, "utf8"), aLabel: false };
}
/** The dots between an email domain's labels: the full stop, and those domainToASCII (UTS #46) reads as one (。 ． ｡). */
const LABEL_DOTS = ".\u3002\uFF0E\uFF61";
const LABEL_DOT = new RegExp(`[${LABEL_DOTS}]`);
/**
 * The longest label of an address's domain (after its last `@`; none without one) as domainLabelOctets counts it, if
 * it is over MAX_EMAIL_DOMAIN_LABEL; else undefined.
 */
export function longDomainLabel(address: string): { octets: number; aLabel: boolean } | undefined {
  const at = address.lastIndexOf("@");
  if (at < 0) return undefined;
  let longest: { octets: number; aLabel: boolean } | undefined;
  for (const label of address.slice(at + 1).split(LABEL_DOT)) {
    const counted = domainLabelOctets(label);
    if (counted.octets > MAX_EMAIL_DOMAIN_LABEL && counted.octets > (longest?.octets ?? 0)) longest = counted;
  }
  return longest;
}
/**
 * An email as it is compared and stored: trimmed and in Unicode NFC, so that `é` typed as one code point or as `e`
 * and a combining accent (as macOS and some keyboards send it) is one login, not two users.
 */
const EmailText = v.pipe(v.string(), v.trim(), v.normalize("NFC"));
/**
 * A user's email (the login): EmailText with one `@` between a local part and a domain, no spaces, no control or
 * format characters (a zero-width space or a bidirectional override makes two logins that look alike, and shows one
 * address as another in a list), at most 254 bytes of UTF-8 in its NFC form (MAX_EMAIL_LENGTH), its local part
 * at most 64 of them (MAX_EMAIL_LOCAL_PART), each label of its domain at most 63 (MAX_EMAIL_DOMAIN_LABEL). A domain
 * of one label is an address too (admin@localhost, the first admin's default; a mail host of an air-gapped intranet),
 * which valibot's email() refused. The one rule of every command and route that takes an email to store (users
 * create, init, POST /users).
 */
export const Email = v.pipe(
  EmailText,
  describedCheck<string>(
    (s) => !/[\p{Cc}\p{Cf}]/u.test(s),
    "must have no control or format characters (such as a zero-width space)",
    { not: { pattern: "[\\p{Cc}\\p{Cf}]" } },
  ),
  maxBytes(MAX_EMAIL_LENGTH),
  v.regex(/^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*$/, "must be an email address"),
  // Described in characters, the most a pattern can count: an address of ASCII is held exactly.
  describedCheck<string>(
    localPartFits,
    (issue) =>
      `must have at most ${MAX_EMAIL_LOCAL_PART} bytes of UTF-8 before the "@" (got ${localPartBytes(issue.input as string)})`,
    { pattern: `^[^@]{0,${MAX_EMAIL_LOCAL_PART}}@` },
  ),
  // A raw_check, not a check: cli/args.ts checkEmail reads a `check` other than localPartFits as the control
  // character rule, and would name a U+0000 the address does not hold; a raw_check is its "not an email address".
  describedAs(
    v.rawCheck<string>(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const long = longDomainLabel(dataset.value);
      if (long)
        addIssue({
          message: `must have at most ${MAX_EMAIL_DOMAIN_LABEL} bytes in each dot-separated part after the "@" (got ${long.octets}${long.aLabel ? " in its xn-- form" : ""})`,
        });
    }),
    {
      pattern: `@(?:[^@${LABEL_DOTS}]{0,${MAX_EMAIL_DOMAIN_LABEL}}[${LABEL_DOTS}])*[^@${LABEL_DOTS}]{0,${MAX_EMAIL_DOMAIN_LABEL}}$`,
    },
  ),
  // maxLength says characters; the byte counts a client's validator cannot check are said in words.
  v.description(
    "An email address of at most 254 bytes of UTF-8 in NFC, its local part (before the @) at most 64, each " +
      "label of its domain (between dots) at most 63 (RFC 5321 and 1035 count octets; a label of other than ASCII " +
      "is counted in its xn-- form).",
  ),
);
/**
 * An email given to sign in with: EmailText, 3 to 254 characters, and no more. Not Email: an address stored before
 * that rule (with a format character, say, of over 254 bytes in 254 characters, or with a local part of over 64
 * bytes, which Email did not count until later) must still sign in, and a malformed one is a wrong login (401), not a
 * request to correct. The store finds it by its NFC form, and falls back to the addresses stored before NFC
 * (db/users.ts byEmail).
 */
export const LoginEmail = v.pipe(EmailText, minChars(3), maxChars(MAX_EMAIL_LENGTH));
/** A user's password: 8 to 1024 characters. */
export const Password = v.pipe(v.string(), minChars(MIN_PASSWORD_LENGTH), maxChars(MAX_PASSWORD_LENGTH));
