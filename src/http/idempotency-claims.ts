/**
 * The claim on an Idempotency-Key in flight, kept where every server sharing a PostgreSQL database sees it
 * (sql/0024_idempotency_claims.sql), so that concurrent duplicates on two servers run the operation once (issue 34).
 * The server that inserts the claim runs the operation, renews the claim while it runs, and releases it once the
 * answer is stored; a duplicate that finds the claim polls until the answer is stored (then replays it) or the claim
 * is gone (the first stored nothing: the duplicate claims and runs, as in one server's memory). A claim whose renewals
 * stop for staleMs (its server died or lost the database) is taken over by the duplicate, which runs the operation:
 * the first never answered (a claim is released only after its answer is stored), as after a crash of one server
 * whose client retries. A 409 instead would leave the key unusable for 24 h for a request that never completed
 * (DESIGN §3: only completed answers are kept). With SQLite (one server) none of this runs: duplicates
 * wait in the server's memory (idempotency.ts). Test: test/db/pg/idempotency-servers.test.ts.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { ClaimKey, IdempotencyClaim, IdempotencyRow } from "../db/idempotency.js";
import type { Store } from "../db/store.js";
import { type Clock, iso } from "../domain/clock.js";
import type { Logger } from "../runtime/log.js";
import { randomUuid } from "../runtime/random.js";

/** How often a claim is polled, renewed, and how long unrenewed before it is taken over, in milliseconds. */
export interface ClaimTiming {
  pollMs: number;
  renewMs: number;
  /** Many renewals long: a server busy for a moment (a long synchronous step, a slow database) keeps its claim. */
  staleMs: number;
}

/** The timing of a server: a duplicate sees the answer within 50 ms, and a dead server's claim is free after 15 s. */
export const CLAIM_TIMING: ClaimTiming = { pollMs: 50, renewMs: 1_000, staleMs: 15_000 };

/** A claim this server holds: released once the answer is stored (or there was none to store). */
export interface HeldClaim {
  release(): void;
}

/** What waiting for a claim ended with: this server holds it, the answer is stored, or another request holds the key. */
export type ClaimOutcome = { held: HeldClaim } | { stored: IdempotencyRow } | { reused: true };

/** The claims of one server on the shared database. */
export class SharedClaims {
  /** This server, as claims name it. */
  readonly server = randomUuid();

  constructor(
    private store: Store,
    private clock: Clock,
    private logger: Logger,
    private timing: ClaimTiming = CLAIM_TIMING,
  ) {}

  /**
   * Waits until this server holds the claim on `at` for `fingerprint`, or until the answer is stored by whoever held
   * it (`stored` reads it), or finds the key claimed for another request.
   */
  async acquire(at: ClaimKey, fingerprint: string, stored: () => IdempotencyRow | undefined): Promise<ClaimOutcome> {
    let seen: IdempotencyClaim | undefined;
    let seenSince = performance.now();
    for (;;) {
      if (this.store.idempotency.claim(at, fingerprint, this.server, iso(this.clock.now())))
        return this.held(at, stored);
      const answer = stored();
      if (answer) return { stored: answer };
      const claim = this.store.idempotency.findClaim(at);
      if (claim) {
        if (claim.fingerprint !== fingerprint) return { reused: true };
        if (!seen || seen.claimed_by !== claim.claimed_by || seen.renewals !== claim.renewals) {
          seen = claim;
          seenSince = performance.now();
        } else if (performance.now() - seenSince >= this.timing.staleMs) {
          if (this.store.idempotency.takeOverClaim(at, claim, this.server, iso(this.clock.now()))) {
            this.logger.info("idempotency claim taken over", { from: claim.claimed_by });
            return this.held(at, stored);
          }
          seen = undefined;
        }
      }
      // No claim: its holder released it between the insert and the read; the next turn claims at once.
      if (claim) await sleep(this.timing.pollMs);
    }
  }

  /**
   * The claim just made, renewed until released. The answer may have been stored between the read that found none and
   * the claim (its holder stores, then releases): then it is replayed and the claim given back.
   */
  private held(at: ClaimKey, stored: () => IdempotencyRow | undefined): ClaimOutcome {
    const release = () => {
      try {
        this.store.idempotency.releaseClaim(at, this.server);
      } catch (e) {
        // Left in place, the claim stops being renewed and a duplicate takes it over after staleMs.
        this.logger.error("idempotency claim not released", { error: (e as Error).message });
      }
    };
    const answer = stored();
    if (answer) {
      release();
      return { stored: answer };
    }
    const renewal = setInterval(() => this.renew(at), this.timing.renewMs);
    renewal.unref();
    return {
      held: {
        release: () => {
          clearInterval(renewal);
          release();
        },
      },
    };
  }

  /**
   * Deletes the claims made `ageMs` or more ago (servers that died with no duplicate coming to take over), in batches
   * of `limit`; returns how many. Single statements on tiny rows: no need of the writer thread.
   */
  purgeOlderThan(ageMs: number, limit: number): number {
    const before = iso(this.clock.now() - ageMs);
    let total = 0;
    for (;;) {
      const n = this.store.idempotency.purgeClaims(before, limit);
      total += n;
      if (n < limit) return total;
    }
  }

  private renew(at: ClaimKey): void {
    try {
      if (!this.store.idempotency.renewClaim(at, this.server))
        this.logger.error("idempotency claim lost while its operation runs");
    } catch (e) {
      this.logger.error("idempotency claim not renewed", { error: (e as Error).message });
    }
  }
}
