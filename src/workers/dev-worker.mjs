// Worker entry used when running from source: loads the TypeScript dispatcher through tsx,
// since worker threads do not inherit the main thread's loader hooks.
import { tsImport } from "tsx/esm/api";

const mod = await tsImport("./worker.ts", import.meta.url);

export default mod.default;
