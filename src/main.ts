/** Entry point: runs the command line and exits with its status. */
import { outputFailed, tolerateClosedOutput } from "./cli/common.js";
import { runCli } from "./cli/program.js";

tolerateClosedOutput();

runCli(process.argv).then((code) => {
  // Standard output that failed, or lost a shown-once secret, fails the command (cli/common.ts).
  process.exitCode = code === 0 && outputFailed() ? 1 : code;
});
