/** Deterministic filler text for benchmarks, crash and fuzz runs: sentences and paragraphs of common words. */

/** A small seeded PRNG (mulberry32): the same seed gives the same sequence. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The common words of the filler text (lower case). */
export const VOCABULARY = (
  "team plan offsite budget quarter customer product launch market growth revenue design review meeting " +
  "strategy goal metric roadmap feature release feedback support onboarding hiring culture remote office " +
  "process workflow tool platform data report insight analysis trend forecast risk opportunity partner vendor " +
  "contract price value quality speed scale cost margin channel campaign content audience brand message story " +
  "writer editor draft version publish schedule deadline calendar week month year morning evening project task " +
  "owner decision priority focus clarity simple clear strong better faster careful honest direct useful practical " +
  "we our they their it this that these those because while although however therefore instead also often " +
  "always never sometimes usually rarely really quite very more most less least new old next last first early " +
  "late good great small large long short high low open close build ship learn test measure improve change keep " +
  "start stop share write read talk listen ask answer help need want make take give find know think feel see use"
).split(" ");

/** `count` words of seeded English-like text in sentences (8–20 words) and paragraphs (4–7 sentences). */
export function words(count: number, seed: number): string {
  const rand = prng(seed);
  const paragraphs: string[] = [];
  let sentences: string[] = [];
  let sentence: string[] = [];
  let sentenceLength = 8 + Math.floor(rand() * 13);
  let paragraphLength = 4 + Math.floor(rand() * 4);
  for (let i = 0; i < count; i++) {
    sentence.push(VOCABULARY[Math.floor(rand() * VOCABULARY.length)]);
    if (sentence.length >= sentenceLength || i === count - 1) {
      const text = sentence.join(" ");
      sentences.push(`${text[0].toUpperCase()}${text.slice(1)}.`);
      sentence = [];
      sentenceLength = 8 + Math.floor(rand() * 13);
      if (sentences.length >= paragraphLength || i === count - 1) {
        paragraphs.push(sentences.join(" "));
        sentences = [];
        paragraphLength = 4 + Math.floor(rand() * 4);
      }
    }
  }
  return paragraphs.join("\n\n");
}

/**
 * A writer's final text for a finalize load: the generated text with about 3% of its words changed, grown to 5,000
 * words from `filler` (the words of a long filler text).
 */
export function finalText(seed: number, generated: string, filler: string[]): string {
  const rand = prng(seed);
  const mine = generated.split(/\s+/).map((w) => (rand() < 0.03 ? "really" : w));
  return [...mine, ...filler.slice(0, Math.max(0, 5000 - mine.length))].join(" ");
}
