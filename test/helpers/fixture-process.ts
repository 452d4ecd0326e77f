/** What the tests that run a fixture in a process of its own (real worker threads) share. */

/**
 * How long such a test may take: the fixture's process spends tens of seconds of CPU on real threads, and other
 * processes sharing the cores may stretch that to minutes. Not a timing the tests check.
 */
export const FIXTURE_TIMEOUT_MS = 300_000;
