/**
 * `npm run bench:writing`: generates the fixed matrix of test/fixtures/writing/ (every built-in template × every
 * direction × no, long and short references × without and with the voice and context memories) with the builtin
 * engine and a fixed seed, no server; then, for each text, simulates an ordinary edit (title case, one sentence
 * deleted, one synonym), learns from it (analyzeEdit, foldAnalysis) and generates again with the learned traits.
 * Prints a Markdown table per template and in total for both rounds (bench/lib/writing-figures.ts counts), writes
 * JSON to bench/results/writing-<timestamp>.json and exits 1 when a target fails (BENCH_NO_FAIL=1 exits 0).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type GenerationOutput, generateBuiltin } from "../src/domain/generation/builtin.js";
import { emptyTraits, type VoiceTraits } from "../src/domain/generation/voice.js";
import { analyzeEdit } from "../src/domain/learning/analyze.js";
import { foldAnalysis } from "../src/domain/learning/fold.js";
import { isFragment } from "../src/domain/writing-checks.js";
import {
  builtInTemplates,
  CONTEXT_MEMORY,
  DIRECTIONS,
  MEMORIES,
  matrixInput,
  REFERENCE_CASES,
  VOICE_RULES,
} from "../test/fixtures/writing/matrix.js";
import {
  checkTargets,
  markdownTable,
  measureSample,
  type Sample,
  simulateEdit,
  tableRows,
  voiceRulesLine,
} from "./lib/writing-figures.js";

const ROOT = path.resolve(import.meta.dirname, "..");

/** One cell of the matrix, generated once and once more after learning from its edit. */
interface Cell {
  before: Sample;
  after: Sample;
  traits: VoiceTraits;
}

function sampleOf(cell: Omit<Sample, "title" | "text" | "word_count" | "warnings">, out: GenerationOutput): Sample {
  const warnings = (out as { warnings?: string[] }).warnings ?? [];
  return { ...cell, title: out.title, text: out.text, word_count: out.word_count, warnings };
}

function runMatrix(): Cell[] {
  const cells: Cell[] = [];
  for (const template of builtInTemplates())
    for (const d of DIRECTIONS)
      for (const refs of REFERENCE_CASES)
        for (const m of MEMORIES) {
          const base = {
            template: template.name,
            target_words: template.target_words,
            direction: d.direction,
            refs,
            memories: m.memories.length > 0,
          };
          const first = generateBuiltin(matrixInput(template, d, refs, m.memories));
          const finalized = simulateEdit(first, d.direction);
          const analysis = analyzeEdit({ generated: first.text, finalized, edit_seconds: 300 });
          const traits = foldAnalysis(emptyTraits(), analysis, 0);
          const second = generateBuiltin(matrixInput(template, d, refs, m.memories, traits));
          cells.push({ before: sampleOf(base, first), after: sampleOf(base, second), traits });
        }
  return cells;
}

function main(): void {
  const started = performance.now();
  const cells = runMatrix();
  const generated = performance.now();
  // Stock sentences recur across the matrix: parse each distinct sentence once.
  const seen = new Map<string, boolean>();
  const fragment = (s: string) => seen.get(s) ?? seen.set(s, isFragment(s)).get(s)!;
  const options = { rules: VOICE_RULES, context: CONTEXT_MEMORY.content, fragment };
  const rounds = (["before", "after"] as const).map((round) => {
    const samples = cells.map((c) => c[round]);
    return tableRows(
      samples,
      samples.map((s) => measureSample(s, options)),
    );
  });
  const [before, after] = rounds;
  const targets = checkTargets(before.at(-1)!, after.at(-1)!);
  const seconds = (performance.now() - started) / 1000;

  console.log(`## Writing benchmark: ${cells.length} texts per round, seed fixed\n`);
  console.log(`### First drafts\n\n${markdownTable(before)}\n\n${voiceRulesLine(before.at(-1)!)}\n`);
  console.log(`### After a learning round on an ordinary edit\n\n${markdownTable(after)}\n`);
  console.log(`${voiceRulesLine(after.at(-1)!)}\n`);
  console.log("### Targets\n");
  for (const t of targets) console.log(`- ${t.pass ? "pass" : "FAIL"}: ${t.name} (${t.value})`);
  console.log(`\n${seconds.toFixed(1)} s (generation ${((generated - started) / 1000).toFixed(1)} s)`);

  const dir = path.join(ROOT, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `writing-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify({ before, after, targets, seconds, texts: cells.length }, null, 2)}\n`);
  console.log(`wrote ${path.relative(ROOT, file)}`);
  if (targets.some((t) => !t.pass) && process.env.BENCH_NO_FAIL !== "1") process.exitCode = 1;
}

main();
