/**
 * The backoff of failed sign-ins (issue 31 L4), kept in the database so that a restart does not reset it and
 * `users clear-backoff` can clear it. Three subjects count each failure: the email from this address, the address,
 * and the email from anywhere. Each signs in freely for its first failures, then waits 1 s after the next one,
 * doubling up to its longest wait; a refused attempt checks no password and counts nothing. An email counts whether
 * or not a user has it, so the answers never say which exist.
 * - The email from one address backs off first (EMAIL_FREE_FAILURES, up to 15 minutes): a burst against one account
 *   from one address stops there, and the account's owner still signs in from their own address.
 * - The address allows more (ADDRESS_FREE_FAILURES): several people may share one, behind one proxy.
 * - The email from anywhere allows many (EMAIL_WIDE_FREE_FAILURES) and waits at most a minute: it slows guessing
 *   spread over many addresses without letting anyone lock the owner out for long.
 * Tests: test/routes/sign-in-backoff.test.ts.
 */
import type { BackoffRow } from "../db/sign-in-backoff.js";
import type { Store } from "../db/store.js";
import { addressKey } from "./address-key.js";
import { ApiError } from "./errors.js";

/** Failures an email may have from one address before each further one makes it wait there. */
export const EMAIL_FREE_FAILURES = 5;
/** Failures an email may have from all addresses together before each further one makes it wait everywhere. */
export const EMAIL_WIDE_FREE_FAILURES = 50;
/** The longest wait of an email from all addresses together. */
export const EMAIL_WIDE_MAX_WAIT_MS = 60_000;
/** Failures a client address may have before each further one makes it wait: several people may share one. */
export const ADDRESS_FREE_FAILURES = 20;
/** The wait after the first failure past the free ones; each further failure doubles it. */
export const FIRST_WAIT_MS = 1000;
/** The longest wait. */
export const MAX_WAIT_MS = 15 * 60_000;
/** Failures are forgotten a day after the last one (and the row purged). */
export const FORGET_AFTER_MS = 24 * 3600_000;

/** The subjects of one sign-in attempt: its email from its address, its address, its email from anywhere. */
export interface SignInSubjects {
  email: string;
  address: string;
  emailWide: string;
}

/** How each kind of subject counts: its free failures and its longest wait. */
const RULES: Record<keyof SignInSubjects, { free: number; maxWait: number }> = {
  email: { free: EMAIL_FREE_FAILURES, maxWait: MAX_WAIT_MS },
  address: { free: ADDRESS_FREE_FAILURES, maxWait: MAX_WAIT_MS },
  emailWide: { free: EMAIL_WIDE_FREE_FAILURES, maxWait: EMAIL_WIDE_MAX_WAIT_MS },
};

/** Every kind of subject an attempt counts against, in the order their waits are compared. */
const KINDS = Object.keys(RULES) as (keyof SignInSubjects)[];

/** The backoff subject of an email from anywhere: NFC and lower case, as a person would type it either way. */
export function emailSubject(email: string): string {
  return `email:${email.trim().normalize("NFC").toLowerCase()}`;
}

/** The backoff subject of an email from one address: the email's subject, a space, the address's. */
function emailFromSubject(email: string, address: string | undefined): string {
  return `${emailSubject(email)} ${addressSubject(address)}`;
}

/** The backoff subject of a client address: its key (an IPv6 address's /64, domain/address-key.ts). */
export function addressSubject(address: string | undefined): string {
  return `addr:${addressKey(address)}`;
}

/** The subjects of an attempt with this email from this address. */
export function subjectsOf(email: string, address: string | undefined): SignInSubjects {
  return {
    email: emailFromSubject(email, address),
    address: addressSubject(address),
    emailWide: emailSubject(email),
  };
}

/** How long a subject waits after its `failures`-th failure. */
export function waitAfter(failures: number, free: number, maxWait = MAX_WAIT_MS): number {
  if (failures <= free) return 0;
  return Math.min(maxWait, FIRST_WAIT_MS * 2 ** Math.min(30, failures - free - 1));
}

/** A row's failures as still counted at `now` (none once forgotten). */
function liveRow(row: BackoffRow | undefined, now: number): BackoffRow | undefined {
  return row && now - row.last_failure_ms < FORGET_AFTER_MS ? row : undefined;
}

/** The 429 of a sign-in refused by its backoff, with Retry-After. */
function backedOff(waitMs: number, subject: "email" | "address"): ApiError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new ApiError(
    "sign_in_backoff",
    `Too many failed sign-ins for this ${subject === "email" ? "email" : "client address"}; retry in ${seconds} s.`,
    { backoff: subject, retry_after_seconds: seconds },
    { "retry-after": String(seconds) },
  );
}

/** Throws 429 sign_in_backoff when the email or the address is still waiting; checks before any password is. */
export function checkSignInBackoff(store: Store, subjects: SignInSubjects, now: number): void {
  const waits = KINDS.map((kind) => {
    const row = liveRow(store.signInBackoff.get(subjects[kind]), now);
    return { kind, wait: row ? row.blocked_until_ms - now : 0 };
  });
  const longest = waits.reduce((a, b) => (b.wait > a.wait ? b : a));
  if (longest.wait > 0) throw backedOff(longest.wait, longest.kind === "address" ? "address" : "email");
}

/**
 * Counts an attempt as failed against its email and its address, before its password is checked: attempts sent
 * together each see the ones before them, so that a hundred parallel guesses are not all let through by one check.
 * A right password takes it back (recordSignInSuccess).
 */
export function recordSignInAttempt(store: Store, subjects: SignInSubjects, now: number): void {
  store.transaction(() => {
    for (const kind of KINDS) countFailure(store, subjects[kind], RULES[kind], now);
  });
}

function countFailure(store: Store, subject: string, rule: { free: number; maxWait: number }, now: number): void {
  const failures = (liveRow(store.signInBackoff.get(subject), now)?.failures ?? 0) + 1;
  store.signInBackoff.put({
    subject,
    failures,
    last_failure_ms: now,
    blocked_until_ms: now + waitAfter(failures, rule.free, rule.maxWait),
  });
}

/**
 * A right password clears its email's failures (from this address and from anywhere), and takes back the one its
 * attempt counted against its address. Not the address's others: one valid account must not let an address guess
 * others' passwords without end.
 */
export function recordSignInSuccess(store: Store, subjects: SignInSubjects): void {
  store.transaction(() => {
    store.signInBackoff.clear(subjects.email);
    store.signInBackoff.clear(subjects.emailWide);
    const row = store.signInBackoff.get(subjects.address);
    if (!row) return;
    if (row.failures <= 1) store.signInBackoff.clear(subjects.address);
    else {
      const failures = row.failures - 1;
      const blocked = row.last_failure_ms + waitAfter(failures, ADDRESS_FREE_FAILURES);
      store.signInBackoff.put({ ...row, failures, blocked_until_ms: blocked });
    }
  });
}

/** Clears the backoff of an email, from every address (`users clear-backoff EMAIL`); whether it had failures. */
export function clearEmailBackoff(store: Store, email: string): boolean {
  const wide = store.signInBackoff.clear(emailSubject(email));
  return store.signInBackoff.clearStartingWith(`${emailSubject(email)} `) || wide;
}

/** Clears the backoff of a client address (`users clear-backoff --address`); whether it had failures. */
export function clearAddressBackoff(store: Store, address: string): boolean {
  return store.signInBackoff.clear(addressSubject(address));
}

/** What the command line lists: each subject still counted, with its failures and its wait. */
export function listSignInBackoff(store: Store, now: number) {
  return store.signInBackoff
    .list()
    .filter((row) => liveRow(row, now))
    .map((row) => ({
      subject: row.subject,
      failures: row.failures,
      last_failure_at: new Date(row.last_failure_ms).toISOString(),
      blocked_until: row.blocked_until_ms > now ? new Date(row.blocked_until_ms).toISOString() : null,
    }));
}

/** Forgets failures older than FORGET_AFTER_MS (run with the expired sessions' purge). */
export function purgeSignInBackoff(store: Store, now: number): number {
  return store.signInBackoff.purge(now - FORGET_AFTER_MS);
}
