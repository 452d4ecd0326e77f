/**
 * A mock of src/db/open.js for vi.mock whose fsyncFile records each call, with whether `synced.out` existed then, and
 * then syncs as the real one does. For tests of the order of a backup's fsyncs (the copy before it has its name, the
 * folder after); `synced` comes from vi.hoisted, as a vi.mock factory runs before the file's imports.
 */
import { existsSync } from "node:fs";
import type * as Open from "../../src/db/open.js";

export interface FsyncLog {
  /** The file whose existence each call notes. */
  out: string;
  /** Each fsyncFile's name, or a step a test noted, with whether `out` existed then. */
  calls: [string, boolean][];
}

export function recordingFsyncs(real: typeof Open, synced: FsyncLog): typeof Open {
  return {
    ...real,
    fsyncFile: (name: string) => {
      synced.calls.push([name, existsSync(synced.out)]);
      real.fsyncFile(name);
    },
  };
}
