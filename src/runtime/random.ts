/**
 * The random source of identifiers, secrets and trace ids: the CSPRNG, or, in sandbox mode with `serve --seed N`
 * only, a generator seeded with N, so that a test run's ids, key secrets, passwords and trace ids are the same on
 * every run (docs/sandbox.md). Seeded secrets are predictable to whoever knows the seed: that is what a sandbox on
 * loopback, holding test data, is for, and `--seed` is refused without `--sandbox`. The seed reaches the worker
 * threads (the writer's ids) through SEED_ENV, which their pools pass on with the environment; each thread draws
 * its own stream of it (by thread id), so no two threads draw the same ids. Held by test/sandbox/seed.test.ts.
 */
import { randomBytes as cryptoBytes, randomInt as cryptoInt, randomUUID as cryptoUuid } from "node:crypto";
import { threadId } from "node:worker_threads";

/** The variable the seed reaches worker threads by (set by seedRandom; internal, not a setting). */
export const SEED_ENV = "CONTENT_SERVICE_INTERNAL_SEED";

/** A seeded generator (sfc32): four 32-bit words of state, 2^128 long; not for anything secret. */
class Seeded {
  private s: Uint32Array;
  constructor(seed: number, stream: number) {
    this.s = Uint32Array.of(0x9e3779b9, seed >>> 0, stream >>> 0, 1);
    for (let i = 0; i < 16; i++) this.word();
  }
  /** The next 32-bit word. */
  word(): number {
    const s = this.s;
    const t = (s[0] + s[1] + s[3]) >>> 0;
    s[3] = (s[3] + 1) >>> 0;
    s[0] = s[1] ^ (s[1] >>> 9);
    s[1] = (s[2] + (s[2] << 3)) >>> 0;
    s[2] = ((s[2] << 21) | (s[2] >>> 11)) >>> 0;
    s[2] = (s[2] + t) >>> 0;
    return t;
  }
}

let seeded: Seeded | undefined = seededFromEnv();

/** A worker thread's generator, when its pool was started with a seed in the environment. */
function seededFromEnv(): Seeded | undefined {
  const value = process.env[SEED_ENV];
  return value ? new Seeded(Number(value), threadId) : undefined;
}

/**
 * Seeds this thread's draws, and those of worker threads started after (undefined: the CSPRNG again). Called by
 * `serve --sandbox --seed` before anything is drawn.
 */
export function seedRandom(seed: number | undefined): void {
  if (seed === undefined) delete process.env[SEED_ENV];
  else process.env[SEED_ENV] = String(seed);
  seeded = seededFromEnv();
}

/** A uniform integer from 0 to `max` - 1 (`max` at most 2^32), unbiased. */
export function randomInt(max: number): number {
  if (!seeded) return cryptoInt(max);
  // Rejection of the top partial range keeps every value equally likely, as crypto's randomInt does.
  const limit = 2 ** 32 - (2 ** 32 % max);
  for (;;) {
    const word = seeded.word();
    if (word < limit) return word % max;
  }
}

/** `length` random bytes. */
export function randomBytes(length: number): Buffer {
  if (!seeded) return cryptoBytes(length);
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = seeded.word() & 0xff;
  return out;
}

/** A random UUID (version 4, RFC 9562). */
export function randomUuid(): string {
  if (!seeded) return cryptoUuid();
  const b = randomBytes(16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = b.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A random number from 0 to 1 (1 excluded), as Math.random's. */
export function randomUnit(): number {
  return seeded ? seeded.word() / 2 ** 32 : Math.random();
}
