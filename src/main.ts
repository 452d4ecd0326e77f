/** Entry point: runs the command line and exits with its status. */
import { tolerateClosedStdout } from "./cli/common.js";
import { runCli } from "./cli/program.js";

tolerateClosedStdout();

runCli(process.argv).then((code) => {
  process.exitCode = code;
});
