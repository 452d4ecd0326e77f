/**
 * The rules administrative input follows, whether it comes over HTTP (routes/admin.ts, routes/apikeys.ts,
 * routes/workspaces.ts) or from the command line (cli/*.ts): one definition, so that neither accepts what the other
 * refuses.
 */
import * as v from "valibot";
import { maxChars } from "../http/schemas.js";

/** The longest name of an account, workspace or key. */
export const MAX_NAME_LENGTH = 100;
/** The highest rate-limit override (requests per minute or per hour). */
export const MAX_RATE_LIMIT = 1_000_000_000;
/** A password's shortest and longest length. */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

/** The name of an account, workspace or API key: trimmed, 1 to 100 characters. */
export const RecordName = v.pipe(v.string(), v.trim(), v.minLength(1), maxChars(MAX_NAME_LENGTH));
/** A rate-limit override: a whole number from 1 to 1,000,000,000. */
export const RateLimit = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_RATE_LIMIT));
/**
 * A user's email (the login): trimmed, one `@` between a local part and a domain, no spaces, at most 254 characters.
 * A domain of one label is an address too (admin@localhost, the first admin's default; a mail host of an air-gapped
 * intranet), which valibot's email() refused.
 */
export const Email = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*$/, "Expected an email address."),
  maxChars(254),
);
/** A user's password: 8 to 1024 characters. */
export const Password = v.pipe(v.string(), v.minLength(MIN_PASSWORD_LENGTH), maxChars(MAX_PASSWORD_LENGTH));
