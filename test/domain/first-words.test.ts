import { describe, expect, it } from "vitest";
import { FIRST_WORDS, firstWords } from "../../src/domain/first-words.js";
import { charLength } from "../../src/runtime/chars.js";

describe("a title made from a text's first words", () => {
  it("keeps a short text whole, whitespace collapsed", () => {
    expect(firstWords("  Owners of\n\tflat   roofs.  ")).toBe("Owners of flat roofs.");
  });

  it(`cuts after ${FIRST_WORDS.words} words, dropping the punctuation before the cut`, () => {
    expect(firstWords("one two three four five six seven eight, nine ten")).toBe(
      "one two three four five six seven eight…",
    );
  });

  it(`cuts between words before ${FIRST_WORDS.chars} characters`, () => {
    const word = "abcdefghijklmnopqrstuvwxyz";
    const title = firstWords(`${word} ${word} ${word} ${word}`);
    expect(title).toBe(`${word} ${word} ${word}…`);
    expect(charLength(title)).toBeLessThanOrEqual(FIRST_WORDS.chars + 1);
  });

  it("cuts a first word longer than the limit inside it, never through an emoji", () => {
    expect(firstWords("x".repeat(200))).toBe(`${"x".repeat(FIRST_WORDS.chars)}…`);
    const emoji = firstWords("😀".repeat(100));
    expect(emoji).toBe(`${"😀".repeat(FIRST_WORDS.chars)}…`);
    expect(emoji.isWellFormed()).toBe(true);
  });
});
