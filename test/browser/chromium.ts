/** Debian's chromium and how the browser tests and benches start it (playwright-core's launch options). */

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * Flags the machine's closed network needs (/work/.library/env/machines/node.md): without the background-networking
 * ones chromium's own connections are refused many at a time.
 */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
