/** The social-thread conversion: a document's sentences packed into numbered posts. */
import { splitSentences } from "../text.js";
import type { Block } from "./markdown-blocks.js";

/** The longest post of a social thread, numbering included (X, Threads and Bluesky allow 280 or more). */
export const POST_LIMIT = 280;

/** A piece of a thread: a heading (which starts a post) or a sentence, with the block it came from. */
interface Unit {
  text: string;
  heading: boolean;
  block: number;
  /** The list or table of the block, if any: its items and rows go one per line. */
  group?: number;
}

/** "3/7 " at the start of a paragraph: the text is already a numbered thread. */
const THREAD_NUMBER = /^\d{1,3}\/\d{1,3}\s+/;

function threadUnits(blocks: Block[]): Unit[] {
  const numbered = blocks.filter((b) => b.kind === "paragraph" && THREAD_NUMBER.test(b.text)).length >= 2;
  const units: Unit[] = [];
  blocks.forEach((b, block) => {
    const collapse = (s: string) => s.replace(/\s+/g, " ").trim();
    const group = b.group;
    if (b.kind === "heading") units.push({ text: collapse(b.text), heading: true, block });
    else if (b.kind === "code" || b.kind === "row")
      units.push({ text: collapse(b.text), heading: false, block, group });
    else {
      let text = b.kind === "paragraph" && numbered ? b.text.replace(THREAD_NUMBER, "") : b.text;
      if (b.kind === "item") text = `${b.marker} ${text}`;
      for (const s of splitSentences(text)) units.push({ text: collapse(s), heading: false, block, group });
    }
  });
  return units.filter((u) => u.text !== "");
}

/** Cuts a string into pieces of at most `size` UTF-16 units without splitting a surrogate pair. */
function hardSplit(word: string, size: number): string[] {
  const pieces: string[] = [];
  let cur = "";
  for (const ch of word) {
    if (cur.length + ch.length > size) {
      pieces.push(cur);
      cur = "";
    }
    cur += ch;
  }
  if (cur) pieces.push(cur);
  return pieces;
}

/** Splits a sentence too long for one post at word boundaries (a word longer than a post is cut). */
function splitWords(text: string, budget: number): string[] {
  const pieces: string[] = [];
  let cur = "";
  for (const word of text.split(" ")) {
    if (word.length > budget) {
      if (cur) pieces.push(cur);
      const parts = hardSplit(word, budget);
      pieces.push(...parts.slice(0, -1));
      cur = parts[parts.length - 1];
    } else if (!cur) cur = word;
    else if (cur.length + 1 + word.length <= budget) cur += ` ${word}`;
    else {
      pieces.push(cur);
      cur = word;
    }
  }
  if (cur) pieces.push(cur);
  return pieces;
}

/** Packs units into posts of at most `budget` characters: whole sentences, a heading starting a post. */
function pack(units: Unit[], budget: number): string[] {
  const posts: string[] = [];
  let cur = "";
  let last: Unit | undefined;
  const flush = () => {
    if (cur) posts.push(cur);
    cur = "";
  };
  for (const u of units) {
    if (u.heading) flush();
    const sep =
      cur === "" || !last
        ? ""
        : last.heading
          ? "\n"
          : last.block === u.block
            ? " "
            : last.group !== undefined && last.group === u.group
              ? "\n"
              : "\n\n";
    if (cur.length + sep.length + u.text.length <= budget) cur += sep + u.text;
    else if (u.text.length <= budget) {
      flush();
      cur = u.text;
    } else {
      flush();
      const pieces = splitWords(u.text, budget);
      for (const piece of pieces.slice(0, -1)) posts.push(piece);
      cur = pieces[pieces.length - 1] ?? "";
    }
    last = u;
  }
  flush();
  return posts;
}

/**
 * A numbered thread ("1/n …") of posts of at most POST_LIMIT characters, numbering included. Sentences are
 * kept whole and packed in order; a heading starts a new post; a sentence longer than a post is split at
 * word boundaries. A text that already is a numbered thread is renumbered.
 */
export function socialThread(blocks: Block[]): string[] {
  const units = threadUnits(blocks);
  if (units.length === 0) return [];
  // The prefix "i/n " is at most 2·digits(n) + 2 long; grow the room for it until the count fits.
  for (let digits = 1; ; digits++) {
    const posts = pack(units, POST_LIMIT - (2 * digits + 2));
    if (String(posts.length).length <= digits) return posts.map((p, i) => `${i + 1}/${posts.length} ${p}`);
  }
}
