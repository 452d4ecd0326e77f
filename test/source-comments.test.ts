/**
 * The comment rules of DEVELOPERS.md over src/: each export has one JSDoc block that says what it is for, and
 * comments state rules, not the story of a bug (that is the commit's to tell).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = path.join(import.meta.dirname, "..", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    // The dashboard's components too (.tsx); not generated declarations (the dashboard's API types).
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

const FILES = sourceFiles(SRC).map((file) => ({
  name: path.relative(path.join(SRC, ".."), file),
  text: readFileSync(file, "utf8"),
}));

function isExported(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

/** The exported declarations of a file, with the JSDoc blocks written right before each. */
function exportsOf(name: string, text: string): { name: string; docs: string[] }[] {
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const seen = new Set<string>();
  return file.statements.filter(isExported).flatMap((node) => {
    const ranges = (ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []).filter((range) =>
      text.startsWith("/**", range.pos),
    );
    // A file's opening block says what the file is for; with a block of its own after it, the export is documented
    // once, and without one the opening block is the export's.
    const docs = (ranges.length > 1 && ranges[0]!.pos === 0 ? ranges.slice(1) : ranges).map((range) =>
      text.slice(range.pos, range.end),
    );
    const declared = ts.isVariableStatement(node)
      ? node.declarationList.declarations.map((d) => d.name.getText(file)).join(", ")
      : ((node as ts.DeclarationStatement).name?.getText(file) ?? "default");
    // An overloaded function is documented once, on its first signature.
    if (ts.isFunctionDeclaration(node) && seen.has(declared)) return [];
    seen.add(declared);
    return [{ name: `${name} ${declared}`, docs }];
  });
}

/** Words that tell what code did before a change: history belongs in git. */
const HISTORY =
  /(?<!as if (?:it|they) )\bhad (?:been|said|answered|read|written|dropped)\b|\bit was a [45]\d\d\b|\bused to (?:be|answer|say)\b/i;

function commentsOf(text: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const found: string[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia)
      found.push(scanner.getTokenText());
  }
  return found;
}

describe("comments in src/", () => {
  it("give each export exactly one JSDoc block with a sentence in it", () => {
    const all = FILES.flatMap((f) => exportsOf(f.name, f.text));
    expect(all.length).toBeGreaterThan(500);
    const undocumented = all.filter((e) => e.docs.length === 0).map((e) => e.name);
    const stacked = all.filter((e) => e.docs.length > 1).map((e) => e.name);
    const empty = all.filter((e) => e.docs.length === 1 && !/[A-Za-z`]/.test(e.docs[0]!.slice(3))).map((e) => e.name);
    expect({ undocumented, stacked, empty }).toEqual({ undocumented: [], stacked: [], empty: [] });
  });

  it("state rules rather than tell what the code had done", () => {
    const stories = FILES.flatMap((f) =>
      commentsOf(f.text)
        .filter((c) => HISTORY.test(c))
        .map((c) => `${f.name}: ${c.match(HISTORY)![0]}`),
    );
    expect(stories).toEqual([]);
  });
});
