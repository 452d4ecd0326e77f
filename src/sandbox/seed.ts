/**
 * Determinism (`serve --sandbox --seed N`, docs/sandbox.md): the random source of ids, secrets and trace ids is
 * seeded (runtime/random.ts), and the server's clock starts at a fixed instant and stays there until a test moves
 * it, so that the same requests get the same answers on every run. The builtin engine needs nothing: its text is a
 * function of its input and the request's `seed` (default 0). Held by test/sandbox/seed.test.ts.
 */
import { ManualClock } from "../domain/clock.js";
import { seedRandom } from "../runtime/random.js";

/** Where a seeded sandbox's clock starts: a fixed instant, so that timestamps are part of the snapshot too. */
export const SEEDED_START_MS = Date.UTC(2030, 0, 1, 9, 0, 0);

/** The largest seed `--seed` takes: the generator's seed word is 32 bits. */
export const SEED_MAX = 2 ** 32 - 1;

/** The clock of a seeded sandbox: at SEEDED_START_MS, moved only when told to (never by real time). */
export function seededClock(): ManualClock {
  return new ManualClock(SEEDED_START_MS);
}

/** Seeds the process's draws (and its worker threads'), before the first start draws its key. */
export function seedSandbox(seed: number): void {
  seedRandom(seed);
}
