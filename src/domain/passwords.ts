/** Password hashing with scrypt; the server runs verification on the worker pool. */
import { scryptSync, timingSafeEqual } from "node:crypto";
import { randomBytes } from "../runtime/random.js";

const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

/** `scrypt$N$r$p$salt$hash`, salt and hash base64url. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password.normalize("NFKC"), salt, KEYLEN, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

/** Constant-time check of a password against a stored hash; false for any malformed hash. */
export function verifyPassword(password: string, stored: string): boolean {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], "base64url");
  const expected = Buffer.from(parts[5], "base64url");
  if (!n || !r || !p || expected.length === 0) return false;
  const actual = scryptSync(password.normalize("NFKC"), salt, expected.length, { N: n, r, p, maxmem: 256 * n * r });
  return timingSafeEqual(actual, expected);
}

/** A generated password for `init` and `users create` when none is given. */
export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}
