/**
 * Runs one pacedLoad() given as JSON in argv[2] and prints its figures as JSON (see loadInChild in load.ts): prints
 * "ready" once loaded, and starts when its standard input ends.
 */
import { pacedLoad } from "./load.js";

const { name, options } = JSON.parse(process.argv[2] ?? "{}");
process.stdout.write("ready\n");
await new Promise<void>((resolve) => {
  process.stdin.resume();
  process.stdin.once("end", () => resolve());
});
const result = await pacedLoad(name, options);
process.stdout.write(JSON.stringify(result));
