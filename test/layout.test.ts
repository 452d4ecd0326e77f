/**
 * The layout of test/ (issue 28, test/README.md): a test file sits in a folder that mirrors one of src/ (test/routes/
 * for src/routes/, test/domain/generation/ for src/domain/generation/) or in one of the named folders below, and no
 * describe block runs over 300 lines, so that a reader finds a file's tests where its source is and reads a block
 * whole.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const TEST = path.join(ROOT, "test");
const SRC = path.join(ROOT, "src");

/** The most lines one describe block may span, its opening and closing lines included. */
const MAX_DESCRIBE_LINES = 300;

/**
 * Top-level folders of test/ that mirror no src/ folder: shared helpers, the fuzzers, the executable's end-to-end
 * tests, the bench's and the browser's, and the shipped contrib/ files.
 */
const NAMED_FOLDERS = new Set(["helpers", "fuzz", "e2e", "bench", "browser", "contrib"]);

/** Every file under `dir`, as paths relative to it with forward slashes. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (!statSync(full).isDirectory()) return [name];
    return filesUnder(full).map((file) => `${name}/${file}`);
  });
}

/** Whether test/`folder` may hold files: the root, a named folder and what is under it, a src/ mirror, fixtures. */
function isAllowedFolder(folder: string): boolean {
  const parts = folder.split("/").filter((part) => part !== "" && part !== ".");
  // A fixtures/ folder, with its own subfolders, belongs to the folder that holds it (test/http/fixtures/ to
  // test/http/, test/fixtures/writing/ to test/).
  const fixtures = parts.indexOf("fixtures");
  if (fixtures >= 0) parts.length = fixtures;
  if (parts.length === 0 || NAMED_FOLDERS.has(parts[0])) return true;
  const mirrored = path.join(SRC, ...parts);
  try {
    return statSync(mirrored).isDirectory();
  } catch {
    return false;
  }
}

/** The name a call is made through: `describe` for describe(), describe.skip() and describe.each(table)(). */
function calleeName(call: ts.CallExpression): string | undefined {
  let callee: ts.Expression = call.expression;
  while (ts.isCallExpression(callee) || ts.isPropertyAccessExpression(callee)) callee = callee.expression;
  return ts.isIdentifier(callee) ? callee.text : undefined;
}

/** One describe block of a test file: its title as written, first line and number of lines. */
interface DescribeBlock {
  title: string;
  line: number;
  lines: number;
}

/** Every describe block of the test file `text` (nested ones too), found with the TypeScript compiler's parser. */
function describeBlocks(name: string, text: string): DescribeBlock[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const blocks: DescribeBlock[] = [];
  const visit = (node: ts.Node): void => {
    // describe.each(table)(...) is one block: count the outermost call only.
    const outermost = !node.parent || !ts.isCallExpression(node.parent) || node.parent.expression !== node;
    if (ts.isCallExpression(node) && outermost && calleeName(node) === "describe") {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const title = node.arguments[0] ? node.arguments[0].getText(source) : "";
      blocks.push({ title, line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return blocks;
}

const files = filesUnder(TEST);
const testFiles = files.filter((file) => file.endsWith(".test.ts"));

describe("the layout of test/", () => {
  it("finds the test files it checks", () => {
    expect(testFiles.length).toBeGreaterThan(100);
    expect(testFiles).toContain("layout.test.ts");
  });

  it("keeps every file in a folder that mirrors src/ or is one of the named ones", () => {
    const misplaced = files.filter((file) => !isAllowedFolder(path.posix.dirname(file)));
    expect(misplaced, `mirror a src/ folder or use one of ${[...NAMED_FOLDERS].join(", ")}`).toEqual([]);
  });

  it(`keeps every describe block at ${MAX_DESCRIBE_LINES} lines or fewer`, () => {
    const long = testFiles.flatMap((file) =>
      describeBlocks(file, readFileSync(path.join(TEST, file), "utf8"))
        .filter((block) => block.lines > MAX_DESCRIBE_LINES)
        .map((block) => ({ file: `test/${file}`, at: `describe(${block.title}) at line ${block.line}`, ...block })),
    );
    expect(long.map((block) => `${block.file}: ${block.at} spans ${block.lines} lines`)).toEqual([]);
  });
});

describe("the layout checks themselves", () => {
  it("take src/ mirrors, named folders and fixtures, and refuse a folder of neither", () => {
    expect(isAllowedFolder(".")).toBe(true);
    expect(isAllowedFolder("routes")).toBe(true);
    expect(isAllowedFolder("domain/generation")).toBe(true);
    expect(isAllowedFolder("http/fixtures")).toBe(true);
    expect(isAllowedFolder("fuzz/fixtures")).toBe(true);
    expect(isAllowedFolder("fixtures/writing")).toBe(true);
    expect(isAllowedFolder("misc/fixtures")).toBe(false);
    expect(isAllowedFolder("helpers")).toBe(true);
    expect(isAllowedFolder("misc")).toBe(false);
    expect(isAllowedFolder("routes/misc")).toBe(false);
  });

  it("measure nested, chained and table describe blocks from their first line to their last", () => {
    const text =
      'describe.each([1])("a %s", () => {\n  describe.skip("inner", () => {\n  });\n});\nit("x", () => {});\n';
    expect(describeBlocks("sample.test.ts", text)).toEqual([
      { title: '"a %s"', line: 1, lines: 4 },
      { title: '"inner"', line: 2, lines: 2 },
    ]);
  });
});
