/** The bound on how long a conversion's output may grow, whatever the format. */

/**
 * The longest output a conversion makes, in characters. A content's text is at most 500,000 characters, and its HTML
 * stays far below this; only links repeating a long address (one reference definition used thousands of times)
 * reach it: 56 KB of "[a] " under a long definition made 160 MB of HTML.
 */
export const MAX_OUTPUT_CHARS = 8_000_000;

/** A conversion whose output would be longer than MAX_OUTPUT_CHARS. */
export class OutputTooLarge extends Error {
  constructor(readonly chars: number) {
    super(`the output would be ${chars} characters`);
  }
}
