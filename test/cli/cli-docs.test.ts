/**
 * docs/cli.md and docs/configuration.md are generated from the commander program (scripts/cli-docs.ts): the committed
 * files must be what the script writes now, and every environment variable the source reads must be documented.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DOC_FILES, renderDocs, replaceGenerated } from "../../scripts/cli-docs.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

/** Every `CONTENT_SERVICE_*` name written in the source, as `grep -rhoE "CONTENT_SERVICE_[A-Z_]+" src` finds them. */
function variablesInSource(): string[] {
  const found = new Set<string>();
  const files = readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" }).filter((f) =>
    f.endsWith(".ts"),
  );
  for (const file of files)
    for (const m of readFileSync(path.join(ROOT, "src", file), "utf8").matchAll(/CONTENT_SERVICE_[A-Z_]+/g))
      found.add(m[0]);
  return [...found].sort();
}

describe("the generated command-line documentation", () => {
  const rendered = renderDocs(ROOT);

  for (const key of Object.keys(DOC_FILES) as (keyof typeof DOC_FILES)[])
    it(`${DOC_FILES[key]} is what \`npm run docs:cli\` writes`, () => {
      expect(read(DOC_FILES[key]), `${DOC_FILES[key]} is out of date: run \`npm run docs:cli\``).toBe(rendered[key]);
    });

  it("documents every command, subcommand and flag", () => {
    const cli = read(DOC_FILES.cli);
    for (const heading of ["`content-service serve`", "`content-service keys rotate`", "`content-service restore`"])
      expect(cli).toContain(heading);
    for (const flag of ["`--llm-base-url <url>`", "`--backup-schedule <cron>`", "`--expires <when>`"])
      expect(cli).toContain(flag);
  });

  it("documents every environment variable the source reads", () => {
    const variables = variablesInSource();
    expect(variables.length).toBeGreaterThan(15);
    const configuration = read(DOC_FILES.configuration);
    const missing = variables.filter((v) => !configuration.includes(`\`${v}\``));
    expect(missing, "add them to docs/configuration.md (a flag's variable: its .env(); else PLAIN_VARIABLES)").toEqual(
      [],
    );
  });

  it("keeps the hand-written text outside the markers, and refuses a file without them", () => {
    const start = "<!-- generated:start (npm run docs:cli writes this part; edit src/cli/*.ts instead) -->";
    const text = `# Title\n\nprose\n\n${start}\nold\n<!-- generated:end -->\n\nafter\n`;
    expect(replaceGenerated(text, "new", "x.md")).toBe(
      `# Title\n\nprose\n\n${start}\n\nnew\n\n<!-- generated:end -->\n\nafter\n`,
    );
    expect(() => replaceGenerated("# no markers\n", "new", "x.md")).toThrow(/x\.md lacks/);
  });
});
