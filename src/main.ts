/** Entry point: runs the command line and exits with its status. */
import { listenEarly } from "./cli/stop-signals.js";

// Before the program's modules load (about a second from source): a stop signal meant for `serve` in that time would
// end the process with Node's default, status 143 and no word. It is recorded until the command is known (serve
// takes it over; any other command has it re-sent).
listenEarly();

Promise.all([import("./cli/output.js"), import("./cli/program.js")]).then(([{ tolerateClosedOutput }, { runCli }]) => {
  tolerateClosedOutput();
  return runCli(process.argv).then((code) => {
    // Standard output that failed, or lost a shown-once secret, has set 1 already (cli/output.ts): a success does not
    // take it back.
    process.exitCode = Math.max(code, Number(process.exitCode ?? 0));
  });
});
