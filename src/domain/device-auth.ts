/** Command-line device authorization (RFC 8628 style): a CLI asks for a code, a signed-in user approves it. */
import { base62 } from "../runtime/ids.js";
import { randomBytes } from "../runtime/random.js";
import type { Clock } from "./clock.js";

/** How long a device code may wait for approval. */
export const DEVICE_CODE_TTL_SECONDS = 600;
/** How often a client should poll. */
export const DEVICE_POLL_SECONDS = 5;

interface Pending {
  userCode: string;
  expiresAt: number;
  approvedBy?: number;
}

/** The outcome of polling with a device code. */
export type DevicePoll = { state: "approved"; userId: number } | { state: "pending" } | { state: "expired" };

const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";

/**
 * Pending device authorizations, in memory: they live ten minutes, and a restart only makes the
 * client ask for a new code.
 */
export class DeviceAuthorizations {
  private byDevice = new Map<string, Pending>();
  private byUser = new Map<string, string>();

  constructor(private clock: Clock) {}

  /** Starts an authorization: the secret device code for the client, the short user code for the person. */
  start(): { deviceCode: string; userCode: string; expiresIn: number } {
    this.prune();
    const deviceCode = base62(40);
    const bytes = randomBytes(8);
    const raw = [...bytes].map((b) => USER_CODE_ALPHABET[b % USER_CODE_ALPHABET.length]).join("");
    const userCode = `${raw.slice(0, 4)}-${raw.slice(4)}`;
    this.byDevice.set(deviceCode, { userCode, expiresAt: this.clock.now() + DEVICE_CODE_TTL_SECONDS * 1000 });
    this.byUser.set(userCode, deviceCode);
    return { deviceCode, userCode, expiresIn: DEVICE_CODE_TTL_SECONDS };
  }

  /**
   * Approves a user code for a user; false when it is unknown, expired, or already approved by another user (the
   * sign-in goes to whoever approved it first: a second approval must not take it over).
   */
  approve(userCode: string, userId: number): boolean {
    const deviceCode = this.byUser.get(userCode.toUpperCase());
    const pending = deviceCode ? this.byDevice.get(deviceCode) : undefined;
    if (!pending || pending.expiresAt <= this.clock.now()) return false;
    if (pending.approvedBy !== undefined) return pending.approvedBy === userId;
    pending.approvedBy = userId;
    return true;
  }

  /** Polls with a device code; an approved code is used up by the poll that returns it. */
  poll(deviceCode: string): DevicePoll {
    const pending = this.byDevice.get(deviceCode);
    if (!pending || pending.expiresAt <= this.clock.now()) return { state: "expired" };
    if (pending.approvedBy === undefined) return { state: "pending" };
    this.byDevice.delete(deviceCode);
    this.byUser.delete(pending.userCode);
    return { state: "approved", userId: pending.approvedBy };
  }

  private prune(): void {
    const now = this.clock.now();
    for (const [code, p] of this.byDevice)
      if (p.expiresAt <= now) {
        this.byDevice.delete(code);
        this.byUser.delete(p.userCode);
      }
  }
}
