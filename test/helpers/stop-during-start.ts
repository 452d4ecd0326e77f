/**
 * Preloaded into a `serve` child (node --import): sends the process a stop signal (STOP_SIGNAL, default SIGTERM) at
 * a step of its start-up (STOP_AT): `first-start` while the first start makes its credentials (its password's
 * hashing), `listeners` as soon as serve listens for the signal, before anything is opened.
 */
import crypto from "node:crypto";
import { syncBuiltinESMExports } from "node:module";

const signal = (process.env.STOP_SIGNAL ?? "SIGTERM") as NodeJS.Signals;
let sent = false;
const send = () => {
  if (sent) return;
  sent = true;
  process.kill(process.pid, signal);
};

if (process.env.STOP_AT === "first-start") {
  const original = crypto.scryptSync;
  crypto.scryptSync = ((...args: Parameters<typeof original>) => {
    send();
    return original(...args);
  }) as typeof original;
  // The program imports scryptSync by name: its binding follows the module object once synced.
  syncBuiltinESMExports();
}

if (process.env.STOP_AT === "listeners")
  process.on("newListener", (event) => {
    // Node's own listener, added before this one, has started watching for the signal: not the default action.
    if (event === signal) send();
  });
