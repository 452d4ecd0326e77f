/**
 * The English language work of the writer, the checks and the scorer, through compromise (parts of speech, noun
 * phrases, inflection): one library for all of it, pure JavaScript, so it is bundled into the single executable.
 * It is loaded on first use, not at import: building its lexicon takes about 130 ms and 30 MiB, which the HTTP
 * thread, which imports the task table but runs none of its language work, would otherwise pay at every start.
 */
import { createRequire } from "node:module";

type Compromise = typeof import("compromise").default;

/** A parsed text, as compromise gives it. */
export type Doc = ReturnType<Compromise>;

/**
 * compromise, loaded once. In the bundles `require("compromise")` is esbuild's own, evaluated lazily; under tsx and
 * vitest (ES modules, no `require`) Node's loader reads it from node_modules.
 */
let library: Compromise | undefined;
function nlp(): Compromise {
  library ??= (
    typeof require === "function" ? require("compromise") : createRequire(import.meta.url)("compromise")
  ) as Compromise;
  return library;
}

/** The forms of an English verb. */
export interface VerbForms {
  infinitive: string;
  past: string;
  present: string;
  gerund: string;
  participle: string;
}

/** compromise's own inflection functions, which take its model. */
interface World {
  model: unknown;
  methods: {
    two: {
      transform: {
        verb: { conjugate(verb: string, model: unknown): Record<string, string | undefined> };
        noun: { toPlural(noun: string, model: unknown): string; toSingular(noun: string, model: unknown): string };
      };
    };
  };
}
const world = () => nlp().world() as unknown as World;
const transform = () => world().methods.two.transform;

/** Parses a text. */
export function parse(text: string): Doc {
  return nlp()(text);
}

/** Loads the library and parses once, so the first request a thread serves does not pay for it (about 150 ms). */
export function warmUp(): void {
  parse("Teams that write their decisions down ship sooner.").verbs();
}

/** The forms of a verb given in its infinitive ("adopt" → adopted, adopts, adopting). */
export function conjugate(verb: string): VerbForms {
  const forms = transform().verb.conjugate(verb.toLowerCase(), world().model);
  const past = forms.PastTense ?? `${verb}ed`;
  return {
    infinitive: forms.Infinitive ?? verb,
    past,
    present: forms.PresentTense ?? `${verb}s`,
    gerund: forms.Gerund ?? `${verb}ing`,
    participle: forms.Participle ?? past,
  };
}

/** The plural of a noun ("analysis" → "analyses"). */
export function pluralOf(noun: string): string {
  return transform().noun.toPlural(noun, world().model);
}

/** The singular of a noun ("users" → "user"). */
export function singularOf(noun: string): string {
  return transform().noun.toSingular(noun, world().model);
}

/** Whether a word is in compromise's lexicon (a dictionary word, not a name it would only guess at). */
export function isLexiconWord(word: string): boolean {
  const lexicon = (nlp().world() as unknown as { model: { one: { lexicon: Record<string, unknown> } } }).model.one
    .lexicon;
  return Object.hasOwn(lexicon, word.toLowerCase());
}

/** Where the verbs of a text stand, as character offsets [start, end): one parse for many questions about parts. */
export function verbSpans(text: string): [number, number][] {
  const sentences = parse(text).json({ offset: true }) as {
    terms: { tags: string[]; offset: { start: number; length: number } }[];
  }[];
  return sentences.flatMap((s) =>
    s.terms
      .filter((t) => t.tags.includes("Verb"))
      .map((t): [number, number] => [t.offset.start, t.offset.start + t.offset.length]),
  );
}

/** Whether a sentence has a verb (an imperative, an auxiliary or a finite verb): one without is a fragment. */
export function hasVerb(sentence: string): boolean {
  return parse(sentence).has("#Verb");
}
