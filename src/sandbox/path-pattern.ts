/** The path patterns of the journal's filter and the fault rules: `*` for any characters, the rest literal. */

/** A `*` pattern as a whole-path regular expression (test/sandbox/journal.test.ts, rules.test.ts). */
export function pathPattern(pattern: string): RegExp {
  const escaped = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}$`);
}
