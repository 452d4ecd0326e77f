/**
 * The writing benchmark's counting (bench/writing.ts): what one generated text shows (doubled words, fragments,
 * dangling sentences, direction coverage, length against target, voice rules, pasted context), the rows of the
 * table per template and in total, the sentences shared across directions, the editor's simulated edit of a
 * learning round, and the targets. Pure functions of the texts, so test/bench/ checks them without a run.
 */
import { fillerIn } from "../../src/domain/filler.js";
import { tokens } from "../../src/domain/generation/language.js";
import {
  directionCoverage,
  doubledWords,
  isDangling,
  isFragment,
  pastedRuns,
  proseSentences,
  sharedSentences,
} from "../../src/domain/writing-checks.js";

/** One generated text of the matrix, with what it was asked for. */
export interface Sample {
  template: string;
  target_words: number;
  direction: string;
  /** Which reference material it was given: none, the long (enough) or the short one. */
  refs: "none" | "long" | "short";
  /** Whether the voice and context memories were given. */
  memories: boolean;
  title: string;
  text: string;
  word_count: number;
  warnings: string[];
}

/** The voice memory's rules, as the benchmark checks them. */
export interface VoiceRules {
  sentenceWordsUnder: number;
  avoid: readonly string[];
  prefer: Record<string, string>;
}

/** Which voice rules one text honours. */
export interface VoiceCheck {
  sentenceLength: boolean;
  noExclamation: boolean;
  noAvoided: boolean;
  addressesYou: boolean;
  contractions: boolean;
  all: boolean;
}

/** What one text shows. */
export interface SampleFigures {
  doubled: number;
  sentences: number;
  fragments: number;
  dangling: number;
  /** Stock filler phrases (filler.ts) in its prose sentences. */
  filler: number;
  coverage: number;
  /** Within ±15% of the target: counted for texts given the long references only (null otherwise). */
  withinTarget: boolean | null;
  /** Shorter than 85% of the target. */
  short: boolean;
  warned: boolean;
  /** Null without the voice memory. */
  voice: VoiceCheck | null;
  /** Runs of 8+ words of the context memory in the text; null without it. */
  pasted: number | null;
}

/** One row of the table: a template's texts, or all of them. */
export interface Row {
  template: string;
  texts: number;
  doubled: number;
  sentences: number;
  fragments: number;
  /** Fragments over prose sentences (0–1). */
  fragmentShare: number;
  dangling: number;
  filler: number;
  /** Average direction coverage (0–1). */
  coverage: number;
  /** Share (0–1) of the texts with long references within ±15% of the target; null when there are none. */
  withinTarget: number | null;
  shortTexts: number;
  shortWarned: number;
  /** Average share (0–1) of sentences shared by two directions' texts of one template. */
  shared: number;
  voiceSamples: number;
  /** Share (0–1) of the texts with the voice memory that honour every rule. */
  voiceHonoured: number | null;
  /** Share (0–1) of those texts that honour each rule. */
  voiceRules: Record<Exclude<keyof VoiceCheck, "all">, number> | null;
  /** Texts given the context memory, and those with a run of 8+ of its words. */
  contextSamples: number;
  pastedTexts: number;
  /** Runs of 8+ words of the context memory, over all texts. */
  pasted: number;
}

/** One target of the benchmark and whether it holds. */
export interface TargetCheck {
  name: string;
  value: string;
  pass: boolean;
}

/** How far a text's length may be from the target and still count as on target. */
export const LENGTH_TOLERANCE = 0.15;

/** A contraction: n't, 're, 'll, 've, 'd, 'm, or 's after a pronoun (not a possessive). */
const CONTRACTION =
  /\b\p{L}+(?:n['’]t|['’]re|['’]ll|['’]ve|['’]d|['’]m)\b|\b(?:it|that|there|here|what|who|let|he|she)['’]s\b/iu;

/** Which of the voice memory's rules a text honours. */
export function voiceCheck(text: string, rules: VoiceRules): VoiceCheck {
  const sentences = proseSentences(text);
  const words = new Set(tokens(text));
  const avoided = [...rules.avoid, ...Object.keys(rules.prefer)].map((w) => w.toLowerCase());
  const check = {
    sentenceLength: sentences.every((s) => tokens(s).length < rules.sentenceWordsUnder),
    noExclamation: !text.includes("!"),
    // Inflected forms too: "leveraging", "utilized".
    noAvoided: !avoided.some((w) => [...words].some((t) => t.startsWith(w.replace(/e$/, "")))),
    addressesYou: words.has("you") || words.has("your"),
    contractions: CONTRACTION.test(text),
  };
  return { ...check, all: Object.values(check).every(Boolean) };
}

/** Measures one text; `fragment` is isFragment, passed in so that a run can remember repeated sentences. */
export function measureSample(
  s: Sample,
  options: { rules: VoiceRules; context: string; fragment?: (sentence: string) => boolean },
): SampleFigures {
  const fragment = options.fragment ?? isFragment;
  const sentences = proseSentences(s.text);
  const short = s.word_count < s.target_words * (1 - LENGTH_TOLERANCE);
  return {
    doubled: doubledWords(s.text).length,
    sentences: sentences.length,
    fragments: sentences.filter(fragment).length,
    dangling: sentences.filter(isDangling).length,
    filler: fillerIn(sentences).reduce((n, f) => n + f.count, 0),
    coverage: directionCoverage(s.direction, s.text),
    withinTarget:
      s.refs === "long" ? Math.abs(s.word_count - s.target_words) <= s.target_words * LENGTH_TOLERANCE : null,
    short,
    warned: s.warnings.length > 0,
    voice: s.memories ? voiceCheck(s.text, options.rules) : null,
    pasted: s.memories ? pastedRuns(options.context, s.text).length : null,
  };
}

/** The pairs' average shared-sentence share of texts on one template with the same inputs but the direction. */
export function sharedAcrossDirections(samples: Sample[]): Map<string, number[]> {
  const groups = new Map<string, Sample[]>();
  for (const s of samples) {
    const key = `${s.template}\u0000${s.refs}\u0000${s.memories}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const perTemplate = new Map<string, number[]>();
  for (const group of groups.values())
    for (let i = 0; i < group.length; i++)
      for (let j = i + 1; j < group.length; j++) {
        const [a, b] = [group[i], group[j]];
        if (a.direction === b.direction) continue;
        const share = (sharedSentences(a, b) + sharedSentences(b, a)) / 2;
        perTemplate.set(a.template, [...(perTemplate.get(a.template) ?? []), share]);
      }
  return perTemplate;
}

const sum = (ns: number[]) => ns.reduce((n, x) => n + x, 0);
const mean = (ns: number[]) => (ns.length === 0 ? 0 : sum(ns) / ns.length);

/** The share (0–1) of the checks that honour each rule. */
function ruleShares(checks: VoiceCheck[]): NonNullable<Row["voiceRules"]> {
  const share = (k: keyof VoiceCheck) => checks.filter((c) => c[k]).length / checks.length;
  return {
    sentenceLength: share("sentenceLength"),
    noExclamation: share("noExclamation"),
    noAvoided: share("noAvoided"),
    addressesYou: share("addressesYou"),
    contractions: share("contractions"),
  };
}

/** One row from a template's (or every) text's figures and its pairs' shared shares. */
export function rowOf(template: string, figures: SampleFigures[], shared: number[]): Row {
  const long = figures.filter((f) => f.withinTarget !== null);
  const voiced = figures.filter((f) => f.voice !== null);
  const sentences = sum(figures.map((f) => f.sentences));
  const fragments = sum(figures.map((f) => f.fragments));
  return {
    template,
    texts: figures.length,
    doubled: sum(figures.map((f) => f.doubled)),
    sentences,
    fragments,
    fragmentShare: sentences === 0 ? 0 : fragments / sentences,
    dangling: sum(figures.map((f) => f.dangling)),
    filler: sum(figures.map((f) => f.filler)),
    coverage: mean(figures.map((f) => f.coverage)),
    withinTarget: long.length === 0 ? null : long.filter((f) => f.withinTarget).length / long.length,
    shortTexts: figures.filter((f) => f.short).length,
    shortWarned: figures.filter((f) => f.short && f.warned).length,
    shared: mean(shared),
    voiceSamples: voiced.length,
    voiceHonoured: voiced.length === 0 ? null : voiced.filter((f) => f.voice?.all).length / voiced.length,
    voiceRules: voiced.length === 0 ? null : ruleShares(voiced.map((f) => f.voice!)),
    contextSamples: figures.filter((f) => f.pasted !== null).length,
    pastedTexts: figures.filter((f) => (f.pasted ?? 0) > 0).length,
    pasted: sum(figures.map((f) => f.pasted ?? 0)),
  };
}

/** The rows of the table: one per template in the samples' order, then the total. */
export function tableRows(samples: Sample[], figures: SampleFigures[]): Row[] {
  const shared = sharedAcrossDirections(samples);
  const templates = [...new Set(samples.map((s) => s.template))];
  const rows = templates.map((t) =>
    rowOf(
      t,
      figures.filter((_, i) => samples[i].template === t),
      shared.get(t) ?? [],
    ),
  );
  return [...rows, rowOf("**Total**", figures, [...shared.values()].flat())];
}

const pct = (x: number | null, digits = 1) => (x === null ? "–" : `${(x * 100).toFixed(digits)}%`);

/** Each voice rule's share of the texts with the voice memory that keep it, as one line. */
export function voiceRulesLine(r: Row): string {
  if (!r.voiceRules) return "voice rules: no text with the voice memory";
  return `voice rules kept, each: ${Object.entries(r.voiceRules)
    .map(([k, v]) => `${k} ${pct(v)}`)
    .join(", ")}`;
}

/** The rows as a Markdown table. */
export function markdownTable(rows: Row[]): string {
  const head =
    "| template | texts | doubled words | fragments | dangling | filler | coverage | within ±15% | short texts warned | shared | voice rules kept | pasted context |";
  const rule = `|${" --- |".repeat(12)}`;
  const lines = rows.map(
    (r) =>
      `| ${r.template} | ${r.texts} | ${r.doubled} | ${pct(r.fragmentShare)} (${r.fragments}/${r.sentences}) | ` +
      `${r.dangling} | ${r.filler} | ${pct(r.coverage)} | ${pct(r.withinTarget)} | ${r.shortWarned}/${r.shortTexts} | ` +
      `${pct(r.shared)} | ${pct(r.voiceHonoured)} | ${r.pastedTexts}/${r.contextSamples} (${r.pasted} runs) |`,
  );
  return [head, rule, ...lines].join("\n");
}

/** The issue's targets, on the total rows before and after the learning round. */
export function checkTargets(before: Row, after: Row): TargetCheck[] {
  const each = (label: string, r: Row): TargetCheck[] => [
    { name: `${label}: 0 doubled words`, value: String(r.doubled), pass: r.doubled === 0 },
    { name: `${label}: fragments ≤ 1%`, value: pct(r.fragmentShare, 2), pass: r.fragmentShare <= 0.01 },
    { name: `${label}: coverage ≥ 90%`, value: pct(r.coverage), pass: r.coverage >= 0.9 },
    {
      name: `${label}: ≥ 80% within ±15% with enough references`,
      value: pct(r.withinTarget),
      pass: r.withinTarget === null || r.withinTarget >= 0.8,
    },
    {
      name: `${label}: every shorter text warns`,
      value: `${r.shortWarned}/${r.shortTexts}`,
      pass: r.shortWarned === r.shortTexts,
    },
    { name: `${label}: shared sentences < 5%`, value: pct(r.shared), pass: r.shared < 0.05 },
    {
      name: `${label}: voice rules in every sample`,
      value: pct(r.voiceHonoured),
      pass: r.voiceHonoured === null || r.voiceHonoured === 1,
    },
    { name: `${label}: no pasted context`, value: String(r.pasted), pass: r.pasted === 0 },
  ];
  const defects = (r: Row) => ({ doubled: r.doubled, fragments: r.fragments, dangling: r.dangling, pasted: r.pasted });
  const grew = Object.entries(defects(after)).filter(
    ([k, v]) => v > defects(before)[k as keyof ReturnType<typeof defects>],
  );
  return [
    ...each("before learning", before),
    ...each("after learning", after),
    {
      name: "learning never increases the defect counts",
      value: grew.length === 0 ? "none grew" : grew.map(([k]) => k).join(", "),
      pass: grew.length === 0,
    },
  ];
}

/** Word replacements an editor makes for taste, not for meaning: the learning round's synonym. */
const SYNONYMS: Record<string, string> = {
  important: "key",
  start: "begin",
  began: "started",
  help: "support",
  shows: "reveals",
  quickly: "fast",
  big: "large",
  large: "big",
  many: "numerous",
  often: "frequently",
  need: "require",
  get: "receive",
  customers: "clients",
  fell: "dropped",
  rose: "climbed",
  said: "noted",
  cut: "reduced",
  moved: "shifted",
  results: "outcomes",
};

/** The title in sentence case: the first word capitalised; words capitalised in the direction keep their case. */
function sentenceCase(title: string, direction: string): string {
  const keep = new Set(direction.match(/\b\p{Lu}[\p{L}\p{N}]*/gu) ?? []);
  return title
    .split(" ")
    .map((w, i) => (i === 0 || keep.has(w) || /^\p{Lu}{2,}/u.test(w) ? w : w.toLowerCase()))
    .join(" ");
}

/**
 * What an ordinary editor makes of a draft: the title in sentence case, one sentence deleted (the middle prose
 * sentence) and one word replaced by a synonym in one other sentence.
 */
export function simulateEdit(out: { title: string; text: string }, direction: string): string {
  let text = out.title ? out.text.replace(out.title, sentenceCase(out.title, direction)) : out.text;
  const sentences = proseSentences(text).filter((s) => !s.includes(out.title));
  const victim = sentences[Math.floor(sentences.length / 2)];
  if (victim) text = text.replace(`${victim} `, "").replace(victim, "");
  for (const s of sentences) {
    if (s === victim) continue;
    const word = s.split(/\s+/).find((w) => Object.hasOwn(SYNONYMS, w));
    if (!word) continue;
    text = text.replace(s, s.replace(new RegExp(`\\b${word}\\b`), SYNONYMS[word]));
    break;
  }
  return text;
}
