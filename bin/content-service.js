#!/usr/bin/env node
// The launcher used from source: runs src/main.ts through tsx (the built executable needs no launcher).
import { tsImport } from "tsx/esm/api";

await tsImport("../src/main.ts", import.meta.url);
