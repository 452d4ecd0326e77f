/** Entry point: runs the command line and exits with its status. */
import { tolerateClosedOutput } from "./cli/common.js";
import { runCli } from "./cli/program.js";

tolerateClosedOutput();

runCli(process.argv).then((code) => {
  // Standard output that failed, or lost a shown-once secret, has set 1 already (cli/common.ts): a success does not
  // take it back.
  process.exitCode = Math.max(code, Number(process.exitCode ?? 0));
});
