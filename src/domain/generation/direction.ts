/**
 * A direction read whole: what kind of piece it asks for (why, how, how to, what, an announcement, a lesson, a
 * topic), its subject as a noun phrase, its claim as a clause, the named things, numbers and audience it mentions.
 * The writer's frames take these parts, so a direction is never cut at a comma or colon and never pasted whole
 * where a noun phrase belongs. Parsed with compromise (nlp.ts), once per distinct direction (a small cache).
 */
import { conjugate, parse } from "./nlp.js";

/** The angle a direction asks for. */
export type DirectionKind = "why" | "how" | "howto" | "what" | "announce" | "lesson" | "topic";

/** A direction as the writer uses it. */
export interface Direction {
  /** The direction as given, blanks collapsed, without its final full stop. */
  text: string;
  kind: DirectionKind;
  /** What the piece is about, as a noun phrase ("written decision logs", "cutting cloud costs by 30%"). */
  subject: string;
  /** The subject's core for later mentions, cut before its first clause or prepositional phrase ("cutting cloud costs"). */
  short: string;
  /** Whether the subject takes a plural verb ("written decision logs are"). */
  plural: boolean;
  /** The claim as a clause, when the direction makes one ("engineering managers should adopt …"). */
  claim: string | null;
  /** A how-to's task as an imperative ("cut cloud costs by 30% without slowing releases"). */
  action: string | null;
  /** What follows a colon or a dash: the specifics of an announcement ("CSV and PDF exports for every plan"). */
  details: string | null;
  /** Named things: proper nouns and acronyms, as written. */
  entities: string[];
  /** Numbers with what they count, as written ("10,000 users", "30%", "24 hours"). */
  numbers: string[];
  /** Who the piece is for, when the direction says ("engineering managers", "small business owners"). */
  audience: string | null;
}

/** One word of a parsed direction: its text (punctuation apart) and compromise's tags. */
interface Word {
  text: string;
  pre: string;
  post: string;
  tags: Set<string>;
}

/** The verbs that ask for an announcement. */
const ANNOUNCE = /^(?:announce|introduce|launch|unveil|present|promote|release)$/i;

/** The verbs that only ask for a piece about what follows ("Explain X", "Write about X"). */
const ABOUT = /^(?:explain|describe|cover|discuss|write|tell|outline|summarise|summarize|explore|review|compare)$/i;

/** The words a piece's genre is named by, left out of a subject ("a blog post about X"). */
const GENRE =
  /^(?:(?:write|draft|create|compose)\s+)?(?:(?:a|an|the|short|long|quick|new)\s+)*(?:blog\s+post|post|article|newsletter|email|thread|linkedin\s+post|landing\s+page|press\s+release|case\s+study|guide|piece|note|description)\s+(?:for\s+[^,.]+?\s+)?(?:about|on|explaining|covering)\s+/i;

const CACHE = new Map<string, Direction>();
const CACHE_SIZE = 64;

/** The direction read into its parts; the same string gives the same (cached) object. */
export function readDirection(direction: string): Direction {
  const cached = CACHE.get(direction);
  if (cached) return cached;
  const read = readUncached(direction);
  if (CACHE.size >= CACHE_SIZE) CACHE.delete(CACHE.keys().next().value as string);
  CACHE.set(direction, read);
  return read;
}

/** The words of a text with their tags; compromise keeps a colon or comma in a word's post text. */
function wordsOf(text: string): Word[] {
  // The parsed terms as they are (`docs`): building the JSON view would double the parse's cost.
  const docs = (parse(text) as unknown as { docs: { text: string; pre: string; post: string; tags: Set<string> }[][] })
    .docs;
  return docs.flatMap((s) => s.map((t) => ({ text: t.text, pre: t.pre, post: t.post, tags: new Set(t.tags) })));
}

/** The words joined back as written, from..to (exclusive), without the last word's trailing punctuation. */
function join(words: Word[], from = 0, to = words.length): string {
  const part = words.slice(from, to);
  const joined = part
    .map((w, i) => w.pre + w.text + (i === part.length - 1 ? "" : w.post))
    .join("")
    .replace(/\s+/g, " ")
    .trim();
  // A quotation mark left without its pair where the words were cut goes.
  return (joined.match(/["“”]/g) ?? []).length % 2 === 1 ? joined.replace(/["“”]/g, "") : joined;
}

/** Whether a word may be part of a noun phrase. */
function inNounPhrase(w: Word): boolean {
  const t = w.tags;
  if (t.has("Preposition") || t.has("Conjunction") || t.has("QuestionWord") || t.has("Pronoun")) return false;
  if (/^(?:that|which|who|when|where|while|because|so)$/i.test(w.text)) return false;
  if (t.has("Verb")) return t.has("Participle") || t.has("Gerund") ? !t.has("Auxiliary") : false;
  return t.has("Noun") || t.has("Adjective") || t.has("Determiner") || t.has("Value") || t.has("Acronym");
}

/** The end (exclusive) of the noun phrase from `from`: up to a clause word, a verb or a colon. */
function nounPhraseEnd(words: Word[], from: number): number {
  let i = from;
  while (i < words.length && (inNounPhrase(words[i]) || isPluralHead(words, from, i))) {
    i++;
    if (/[:;,—–]|\s-\s/.test(words[i - 1].post)) break;
  }
  // A participle or gerund ends no noun phrase ("written" in "written decision logs" is fine inside).
  while (i > from + 1 && words[i - 1].tags.has("Verb") && !isPluralHead(words, from, i - 1)) i--;
  return i;
}

/**
 * Whether words[i], tagged a verb ("times" in "support response times from …"), is the plural noun that ends the
 * noun phrase begun at `from`: it ends in s, follows a noun, and a preposition or the end comes next.
 */
function isPluralHead(words: Word[], from: number, i: number): boolean {
  const w = words[i];
  const next = words[i + 1];
  return (
    i > from &&
    w.tags.has("PresentTense") &&
    /[^s]s$/.test(w.text) &&
    words[i - 1].tags.has("Noun") &&
    (!next || next.tags.has("Preposition") || next.tags.has("Conjunction"))
  );
}

/**
 * Retags, in place, a word the tagger read as a noun right after a name ("Northwind cut support …") when it is a
 * verb whose past tense is itself (cut, put, set): the name is then the clause's subject.
 */
function verbAfterName(words: Word[]): void {
  for (let i = 2; i < words.length - 1; i++) {
    const w = words[i];
    if (!words[i - 1].tags.has("ProperNoun") || w.tags.has("Verb") || w.tags.has("ProperNoun")) continue;
    if (conjugate(w.text).past === w.text.toLowerCase() && conjugate(w.text).infinitive === w.text.toLowerCase()) {
      w.tags = new Set(["Verb", "PastTense"]);
      return;
    }
  }
}

/** Whether words[from, to) hold a noun (or a gerund standing for one). */
function hasNoun(words: Word[], from: number, to: number): boolean {
  return words.slice(from, to).some((w) => w.tags.has("Noun") || w.tags.has("Gerund") || w.tags.has("Acronym"));
}

/** Whether the noun phrase's head (its last word) is plural. */
function isPlural(words: Word[], from: number, to: number): boolean {
  const head = words[to - 1];
  if (!head) return false;
  if (/\band\b/i.test(join(words, from, to))) return true;
  if (head.tags.has("PresentTense") && /[^s]s$/.test(head.text)) return true;
  return head.tags.has("Plural") && !head.tags.has("Uncountable");
}

/** The index of the first word after a colon, a semicolon or a spaced dash, or -1. */
function detailsStart(words: Word[], commas = false): number {
  const i = words.findIndex((w) => (commas ? /[:;,—–]|\s-\s/ : /[:;—–]|\s-\s/).test(w.post));
  return i >= 0 && i < words.length - 1 ? i + 1 : -1;
}

/** The lower-case form of a phrase's first word unless it is a name or an acronym. */
function lowerLead(phrase: string, first: Word | undefined): string {
  if (!first || first.tags.has("ProperNoun") || first.tags.has("Acronym") || /^\p{Lu}{2,}/u.test(first.text))
    return phrase;
  return phrase.charAt(0).toLowerCase() + phrase.slice(1);
}

/** Numbers with the word they count ("10,000 users", "3 March", "30%"), as written. */
function numbersOf(text: string): string[] {
  const found = text.match(/\p{N}+(?:[.,]\p{N}+)*(?:\s?%|\s(?:per\s)?[\p{L}]+)?/gu) ?? [];
  return found.map((n) => n.replace(/\s(?:and|or|to|for|by|from|with|without|in|on|of|the|a)$/i, ""));
}

/** The named things: runs of proper nouns and acronyms that are not the sentence's first word. */
function entitiesOf(words: Word[]): string[] {
  const out: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length) out.push(run.join(" "));
    run = [];
  };
  words.forEach((w, i) => {
    const named = i > 0 && (/^\p{Lu}/u.test(w.text) || w.tags.has("Acronym")) && !w.tags.has("Date");
    if (named) run.push(w.text);
    else flush();
    if (/[,:;]/.test(w.post)) flush();
  });
  flush();
  return [...new Set(out)];
}

/** The audience a direction names: "for X" at its end, else the grammatical subject of its claim. */
function audienceOf(text: string, claimSubject: string | null): string | null {
  const m =
    /\bfor\s+((?:(?:our|your|busy|small|new|senior|junior|first-time|remote)\s+)*[\p{L}-]+(?:\s[\p{L}-]+)?\s(?:owners|managers|teams|leaders|engineers|developers|buyers|customers|readers|users|founders|marketers|writers|parents|students))\b/iu.exec(
      text,
    );
  if (m) return m[1].toLowerCase();
  return claimSubject;
}

/** Reads a direction without the cache. */
function readUncached(raw: string): Direction {
  const text = raw
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.!]+$/, "");
  const body = text.replace(GENRE, "");
  const words = wordsOf(body);
  const base = {
    text,
    entities: entitiesOf(words),
    numbers: numbersOf(text),
    details: null as string | null,
    claim: null as string | null,
    action: null as string | null,
  };
  const read = readByShape(body, words);
  const audience = audienceOf(text, read.audience ?? null);
  // "X for remote engineering teams": the audience is who the piece is for, not part of its subject.
  const tail = audience ? ` for ${audience}` : "";
  const cut = tail && read.subject.toLowerCase().endsWith(tail) ? read.subject.slice(0, -tail.length) : "";
  const chosen = cut.split(" ").length >= 2 ? cut : read.subject;
  // A direction too short to read ("Why?", "Launch") is its own subject.
  const subject = chosen.replace(/[?!.]+$/, "").trim() || text.replace(/[?!.]+$/, "").trim() || "this topic";
  return { ...base, ...read, subject, short: shortOf(subject), audience };
}

/** What the shape of the direction says: its kind, subject, claim, action and details. */
function readByShape(
  body: string,
  words: Word[],
): Omit<Direction, "text" | "entities" | "numbers" | "audience" | "short"> & { audience?: string | null } {
  const first = words[0]?.text.toLowerCase() ?? "";
  const rest = join(words, 1);
  const question = first === "why" || first === "what" || (first === "how" && words[1]?.text.toLowerCase() !== "to");
  // "What is RAG", "How does X work": a question about a thing, not a claim.
  if (question && words[1]?.tags.has("Verb") && !words[1].tags.has("Gerund")) return topicOf(words, 2);
  if (question) return readQuestion(first as "why" | "what" | "how", words);
  if (first === "how" && words.length > 2) {
    const action = join(words, 2);
    return { kind: "howto", subject: gerundPhrase(action), plural: false, claim: null, action, details: null };
  }
  if (/^(?:share|tell|draw|teach)$/.test(first) && /\blessons?\b/i.test(body)) {
    const m = /\blessons?\s+(?:\w+\s+)?(?:from|about|of|on|in)\s+(.+)$/i.exec(body);
    const subject = m ? m[1] : rest;
    return { kind: "lesson", subject, plural: false, claim: null, action: null, details: null };
  }
  const imperative = words[0]?.tags.has("Imperative") || words[0]?.tags.has("Infinitive");
  // At a direction's start these verbs are instructions, however the tagger reads them.
  if (ANNOUNCE.test(first) && words.length > 1) return readAnnouncement(words);
  if (ABOUT.test(first) && words.length > 1) {
    const from = /^(?:about|on|how|why|what)$/i.test(words[1]?.text ?? "") ? 2 : 1;
    if (/^(?:how|why|what)$/i.test(words[1]?.text ?? "")) return readByShape(join(words, 1), words.slice(1));
    return topicOf(words, from);
  }
  // Any other instruction ("Convince the board to …"): the task as a gerund phrase.
  if (imperative && words.length > 1 && words[0].tags.has("Verb")) {
    const topic = topicOf(words, 0);
    return { ...topic, subject: gerundPhrase(join(words, 0, detailsOr(words))), plural: false };
  }
  return topicOf(words, 0);
}

/** The index where a direction's details start, or its length. */
function detailsOr(words: Word[]): number {
  const d = detailsStart(words);
  return d > 0 ? d : words.length;
}

/** A topic: the whole (rest of the) direction as the subject, the part after a colon as details. */
function topicOf(words: Word[], from: number): Omit<Direction, "text" | "entities" | "numbers" | "audience" | "short"> {
  const d = detailsStart(words);
  const end = d > from ? d : words.length;
  const subject = lowerLead(join(words, from, end), words[from]);
  const gerund = words[from]?.tags.has("Gerund");
  return {
    kind: "topic",
    subject,
    plural: gerund ? false : isPlural(words, from, nounPhraseEnd(words, from)),
    claim: null,
    action: null,
    details: d > from ? join(words, d) : null,
  };
}

/** "Why/How/What X should Y": the claim is the clause, the subject its object (or its subject without one). */
function readQuestion(
  kind: "why" | "what" | "how",
  words: Word[],
): Omit<Direction, "text" | "entities" | "numbers" | "audience" | "short"> & { audience: string | null } {
  const claim = lowerLead(join(words, 1), words[1]);
  verbAfterName(words);
  const subjEnd = nounPhraseEnd(words, 1);
  // Who the claim is about is an audience only when it is a group ("engineering managers"), not a name.
  const group = subjEnd > 1 && words[subjEnd - 1].tags.has("Plural") && !words[1].tags.has("ProperNoun");
  const claimSubject = group ? join(words, 1, subjEnd).toLowerCase() : null;
  // The object: the first noun phrase with a noun after the clause's main verb, past adverbs and prepositions.
  let v = subjEnd;
  while (v < words.length && words[v].tags.has("Verb") && !words[v].tags.has("Participle")) v++;
  let objEnd = nounPhraseEnd(words, v);
  while (v < words.length && v > subjEnd && !hasNoun(words, v, objEnd)) {
    if (/^(?:that|which|who|when|where|while|because|so|if)$/i.test(words[v].text)) break;
    v = Math.max(v + 1, objEnd);
    objEnd = nounPhraseEnd(words, v);
  }
  // A number alone ("from 9 hours") is a detail of the claim, not what it is about.
  const hasObject = objEnd > v && v > subjEnd && hasNoun(words, v, objEnd) && !words[v].tags.has("Value");
  const subject = hasObject ? lowerLead(join(words, v, objEnd), words[v]) : (claimSubject ?? claim);
  const plural = hasObject ? isPlural(words, v, objEnd) : isPlural(words, 1, subjEnd);
  return { kind, subject, plural, claim, action: null, details: null, audience: hasObject ? claimSubject : null };
}

/** "Announce X: details" or "Introduce X that does Y": X, its details, and the clause X does Y. */
function readAnnouncement(words: Word[]): Omit<Direction, "text" | "entities" | "numbers" | "audience" | "short"> {
  const end = nounPhraseEnd(words, 1);
  const subject = lowerLead(join(words, 1, end), words[1]);
  const d = detailsStart(words, true);
  const details = d > 0 ? join(words, d) : null;
  const next = words[end]?.text.toLowerCase();
  const relative = next === "that" || next === "which" || next === "who";
  const claim = relative && d < 0 ? `${subject} ${join(words, end + 1)}` : null;
  const more = !relative && d < 0 && end < words.length ? join(words, end) : null;
  return {
    kind: "announce",
    subject: more ? `${subject} ${more}` : subject,
    plural: isPlural(words, 1, end),
    claim,
    action: null,
    details,
  };
}

/** Words a subject's core ends before: a clause or a prepositional phrase begins. */
const CORE_END =
  /^(?:by|to|before|after|without|when|while|for|from|with|in|on|at|that|which|who|because|so|if|across|into|through)$/i;

/** The core of a subject: its words up to the first clause or prepositional phrase after two words or more. */
function shortOf(subject: string): string {
  const words = subject.split(" ");
  const cut = words.findIndex((w, i) => i >= 2 && CORE_END.test(w));
  return cut > 0
    ? words
        .slice(0, cut)
        .join(" ")
        .replace(/[,;:]$/, "")
    : subject;
}

/** A how-to's task as a gerund phrase ("cut cloud costs" → "cutting cloud costs"). */
function gerundPhrase(action: string): string {
  const [verb, ...tail] = action.split(" ");
  return [conjugate(verb).gerund.toLowerCase(), ...tail].join(" ");
}
