/** Runs one load() given as JSON in argv[2] and prints its figures as JSON (see loadInChild in load.ts). */
import { load } from "./load.js";

const { name, options } = JSON.parse(process.argv[2] ?? "{}");
const result = await load(name, options);
process.stdout.write(JSON.stringify(result));
