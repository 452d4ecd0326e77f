/**
 * Varied texts for the scale benchmark (issue 33 point 4): sentences of common words that name people, places and
 * organisations and repeat key phrases drawn from combinatorial vocabularies of millions of entities, with a Zipf-like
 * (1/rank) frequency, so that a workspace's distinct entities keep growing with its sources as a real one's do, a few
 * of them mentioned everywhere and most of them rarely. Seeded: the same seed gives the same text
 * (test/bench/corpus.test.ts).
 */
import { prng, VOCABULARY } from "./text.js";

const ONSETS = "b br c ch d dr f g gr h j k l m n p pr r s sh st t tr v w z".split(" ");
const VOWELS = "a e i o u ai ea ie oa ou".split(" ");
const CODAS = " l n r s th x nd rk ll".split(" ");
/** Syllables of invented words: onset, vowel and coda (2,500 of them). */
const SYLLABLES = ONSETS.flatMap((o) => VOWELS.flatMap((v) => CODAS.map((c) => `${o}${v}${c}`)));
const PLACE_ENDINGS = "ford ton vale bridge mouth wick field haven port stead moor burgh".split(" ");
const ORG_ENDINGS = "Labs Group Systems Partners Foundry Works Institute Holdings Collective Trust".split(" ");
const ADJECTIVES = (
  "supply ballast thermal modular coastal rural urban legacy hybrid seasonal regional private public solar " +
  "freight dairy textile timber mineral harbour grain orbital cellular dental civic marine alpine"
).split(" ");
const NOUNS = (
  "chain mounts pump grid corridor ledger turbine archive clinic charter tariff levy reservoir kiln loom " +
  "depot quarry terminal mill hangar orchard vineyard foundry reactor observatory"
).split(" ");

/** How many distinct entities of each kind the vocabularies hold. */
export const SPACE = { person: 2_500 ** 2, place: 2_500 * PLACE_ENDINGS.length, organisation: 2_500 ** 2 } as const;

/** A rank from 0 to n - 1, rank r drawn with a probability close to 1/(r + 1) (a log-uniform draw). */
export function zipfRank(rand: () => number, n: number): number {
  return Math.min(n - 1, Math.floor(Math.exp(rand() * Math.log(n + 1))) - 1);
}

/** Rank r's entity index: a fixed permutation, so that the most frequent entities are not neighbours. */
const scatter = (rank: number, n: number) => Number((BigInt(rank) * 2_654_435_761n) % BigInt(n));

const capital = (s: string) => `${s[0].toUpperCase()}${s.slice(1)}`;
/** Invented capitalised word k of 2,500, of two syllables (the first one its own). */
const word = (k: number) => capital(`${SYLLABLES[k % 2_500]}${SYLLABLES[(k * 37 + 11) % 2_500]}`);

export function person(rank: number): string {
  const i = scatter(rank, SPACE.person);
  return `${word(i % 2_500)} ${word(Math.floor(i / 2_500) + 7)}`;
}

export function place(rank: number): string {
  const i = scatter(rank, SPACE.place);
  return `${word((i % 2_500) + 11)}${PLACE_ENDINGS[Math.floor(i / 2_500)]}`;
}

export function organisation(rank: number): string {
  const i = scatter(rank, SPACE.organisation);
  return `${word((i % 2_500) + 13)} ${ORG_ENDINGS[Math.floor(i / 2_500) % ORG_ENDINGS.length]}`;
}

/** A lower-case two-word term ("coastal turbine"): few of them, as a field's jargon is. */
export function term(rank: number): string {
  const i = scatter(rank, ADJECTIVES.length * NOUNS.length);
  return `${ADJECTIVES[i % ADJECTIVES.length]} ${NOUNS[Math.floor(i / ADJECTIVES.length)]}`;
}

/** One entity of a document's cast: a person, place or organisation, drawn by Zipf rank. */
function castMember(rand: () => number): string {
  const kind = rand();
  if (kind < 0.45) return person(zipfRank(rand, SPACE.person));
  if (kind < 0.75) return organisation(zipfRank(rand, SPACE.organisation));
  return place(zipfRank(rand, SPACE.place));
}

const filler = (rand: () => number, n: number) =>
  Array.from({ length: n }, () => VOCABULARY[Math.floor(rand() * VOCABULARY.length)]);

/**
 * About `count` words of text about a cast of 4 to 12 entities and 2 to 4 terms of its own: sentences of 8 to 16
 * common words, each naming one or two of the cast mid-sentence and often a term, in paragraphs of 5 sentences.
 */
export function document(count: number, seed: number): string {
  const rand = prng(seed);
  const cast = Array.from({ length: 4 + Math.floor(rand() * 9) }, () => castMember(rand));
  const terms = Array.from({ length: 2 + Math.floor(rand() * 3) }, () => term(zipfRank(rand, 1_000)));
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const sentences: string[] = [];
  for (let written = 0; written < count; ) {
    const ws = filler(rand, 8 + Math.floor(rand() * 9));
    ws.splice(1 + Math.floor(rand() * (ws.length - 1)), 0, pick(cast));
    if (rand() < 0.5) ws.splice(1 + Math.floor(rand() * (ws.length - 1)), 0, "with", pick(cast));
    if (rand() < 0.6) ws.splice(1 + Math.floor(rand() * (ws.length - 1)), 0, "the", pick(terms));
    written += ws.length;
    sentences.push(`${capital(ws.join(" "))}.`);
  }
  const paragraphs: string[] = [];
  for (let i = 0; i < sentences.length; i += 5) paragraphs.push(sentences.slice(i, i + 5).join(" "));
  return paragraphs.join("\n\n");
}
