/** Entry point: runs the command line and exits with its status. */
import { runCli } from "./cli/program.js";

runCli(process.argv).then((code) => {
  process.exitCode = code;
});
