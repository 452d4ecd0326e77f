/**
 * Preloaded into a `serve` child (node --import): sends the process a stop signal (STOP_SIGNAL, default SIGTERM) at
 * a step of its start-up (STOP_AT): `first-start` while the first start makes its credentials (its password's
 * hashing), `listeners` as soon as the program listens for the signal, `loading` while its modules load (both before
 * anything is opened).
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

// `loading`: while the program's modules load (from source, about a second), as program.ts is loaded: a loader hook,
// on the loader's thread, sends the signal to the process (before serve's action runs, and, in the code before
// main.ts listened early, before any listener).
if (process.env.STOP_AT === "loading") {
  const { register } = await import("node:module");
  const hooks = `
    let sent = false;
    export async function load(url, context, nextLoad) {
      if (!sent && url.endsWith("/src/cli/program.ts")) {
        sent = true;
        process.kill(process.pid, ${JSON.stringify(signal)});
      }
      return nextLoad(url, context);
    }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}

if (process.env.STOP_AT === "listeners")
  process.on("newListener", (event) => {
    // Node's own listener, added before this one, has started watching for the signal: not the default action.
    if (event === signal) send();
  });

// `listening`: as soon as the server listens, before its start's last check for a signal; STOP_CLOSE_FAILS: its
// close then fails (the main thread's database connection closes, then throws).
if (process.env.STOP_AT === "listening") {
  const http = await import("node:http");
  // Imported as the program imports it (with tsx's hooks, a require() would load another copy).
  const Database = (await import("better-sqlite3")).default;
  const { isMainThread } = await import("node:worker_threads");
  const original = http.Server.prototype.listen;
  http.Server.prototype.listen = function (this: InstanceType<typeof http.Server>, ...args: unknown[]) {
    this.once("listening", () => {
      send();
      if (process.env.STOP_CLOSE_FAILS && isMainThread) {
        const close = Database.prototype.close;
        Database.prototype.close = function (this: unknown) {
          close.call(this);
          Database.prototype.close = close;
          throw new Error("closing failed (injected)");
        };
      }
    });
    return original.apply(this, args as Parameters<typeof original>);
  } as typeof original;
}
