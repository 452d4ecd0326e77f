/** Random identifiers and secrets from the CSPRNG (seeded in sandbox mode with `--seed`: random.ts). */
import { randomUUID } from "node:crypto";
import { randomInt } from "./random.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` characters of base62, each drawn uniformly (randomInt rejects biased draws). */
export function base62(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

/** A prefixed identifier such as `ws_7Hq2…` or `key_…`. */
export function prefixedId(prefix: "ws" | "key" | "lj" | "vp" | "tr", length = 16): string {
  return `${prefix}_${base62(length)}`;
}

/**
 * A server's identity among those sharing a database (`srv_` and a UUID), named on the jobs it claims. Drawn from
 * node:crypto, not the seeded draws: a sandbox's seeded ids stay the same whether or not a server started.
 */
export function serverId(): string {
  return `srv_${randomUUID()}`;
}
