/**
 * The builtin writer's sections, one function per role: each opens with a frame that fits the direction's angle
 * and carries the reference passages' sentences up to its word budget, in the form its template expects (a
 * release's dateline and quotation, an email's greeting and sign-off, a how-to's numbered steps, a product's
 * benefit bullets). With no passage left a section says only what the direction supports, rather than padding.
 */
import { fillFrame, slotsOf } from "./frames.js";
import { capitalise, STOP_WORDS, terms, wordCount } from "./language.js";
import { parse } from "./nlp.js";
import { AUDIENCE_LINES, CONTEXTS, EXAMPLES, HOOKS, POINTS, READER_LINES, SUMMARIES } from "./phrases-body.js";
import { CTAS, CUSTOMER_QUOTES, QUESTIONS, QUOTES, STEP_FALLBACKS } from "./phrases-close.js";
import { fillWithFacts, frame, hasFact, nextFactWords, type Piece, takeFact, takeFigure } from "./piece.js";

/** A section of a template, as the writer reads it. */
export interface SectionSpec {
  key: string;
  heading: string | null;
  role: string;
  words: number;
  instruction?: string;
}

/** A section's text as written, before the voice's polish: prose sentences, or lines laid out as they are. */
export interface SectionBlock {
  heading: string | null;
  role: string;
  /** Prose sentences, or layout lines (a list, a quotation, a sign-off) kept as lines. */
  body: string[] | string;
  /** Lines before the prose that the voice leaves alone (a greeting, a dateline). */
  prefix?: string;
}

/** The roles written as prose paragraphs (any other is a set form: steps, a quotation, a call to action, a close). */
const PROSE_ROLES = new Set(["context", "point", "evidence", "example", "summary"]);

/** Writes a section by its role within its word budget; a role the writer does not know is written as a point. */
export function writeSection(p: Piece, section: SectionSpec, budget: number): SectionBlock {
  const block = (body: string[] | string, prefix?: string): SectionBlock => ({
    heading: section.heading,
    role: section.role,
    body,
    prefix,
  });
  p.sectionStart = true;
  // A template without a hook opens on its first prose section (a release's subheadline, an "at a glance").
  const opening = section.role === "hook" || (!p.opened && PROSE_ROLES.has(section.role));
  if (opening) {
    p.opened = true;
    const hook = block(
      writeHook(p, budget),
      p.format === "email" && section.role === "hook" ? "Hi [Name]," : undefined,
    );
    laterMentions(p);
    return hook;
  }
  switch (section.role) {
    case "context":
      return writeContext(p, budget, block);
    case "steps":
      return block(writeSteps(p, budget));
    case "quote":
      return block(writeQuote(p));
    case "evidence":
      return block(fillWithFacts([takeFigure(p)], budget, p));
    case "example":
      return block(fillWithFacts(hasFact(p) ? [frame(p, EXAMPLES)] : [], budget, p));
    case "summary":
      return block(fillWithFacts([frame(p, SUMMARIES)], budget, p));
    case "cta":
      return block([frame(p, p.format === "post" || p.format === "thread" ? QUESTIONS : CTAS) ?? ""]);
    case "signoff":
      return writeSignoff(p, section);
    default:
      if (p.format === "product") return block(writeBenefits(p, budget));
      return block(fillWithFacts(hasFact(p) ? [frame(p, POINTS)] : [], budget, p));
  }
}

/**
 * After the opening states the direction whole, later frames name its subject by its core and restate neither its
 * claim nor its task: a direction repeated in every section reads as filler.
 */
function laterMentions(p: Piece): void {
  const short = p.direction.short;
  p.slots = { ...p.slots, subject: short, about: short, claim: null, action: null };
}

/** The opening: a frame, a line for the audience when there is one, then facts. */
function writeHook(p: Piece, budget: number): string[] {
  const first = [frame(p, HOOKS)];
  // A voice memory that asks for "you" or contractions has both in the piece's own words from the start.
  if (p.rules.person === "you" || p.rules.contractions === true) first.push(frame(p, READER_LINES));
  if (p.slots.audience && budget >= 40) first.push(frame(p, AUDIENCE_LINES));
  if (p.direction.kind === "announce" && p.direction.details) first.push(`It brings ${p.direction.details}.`);
  if (p.direction.kind === "announce" && p.direction.claim) first.push(restateClaim(p));
  return fillWithFacts(first, budget, p);
}

/** A release's first sentence after its dateline, when the direction makes no claim of its own. */
const RELEASE_LEADS: Record<string, string> = {
  announce: "[Company] today announced {subject}.",
  howto: "[Company] today published a guide on how to {action}.",
  lesson: "[Company] today shared what {subject} taught its team.",
  claim: "[Company] today published its view on {about}.",
  topic: "[Company] today published new guidance on {subject}.",
};

/** An announcement's claim after the subject was just named: "It keeps drinks cold …", not the subject again. */
function restateClaim(p: Piece): string {
  const { claim, subject, plural } = p.direction;
  if (claim?.startsWith(`${subject} `)) return `${plural ? "They" : "It"} ${claim.slice(subject.length + 1)}.`;
  return claim ? `${capitalise(claim)}.` : "";
}

/** The background: a frame and the context memories' facts, then passages; a release's lead has a dateline. */
function writeContext(
  p: Piece,
  budget: number,
  block: (body: string[] | string, prefix?: string) => SectionBlock,
): SectionBlock {
  const notes = p.notes.facts.filter((f) => bearsOn(p, f)).map((f) => (/[.!?]$/.test(f) ? f : `${f}.`));
  if (p.format === "release") {
    const claims = ["{Claim}.", "[Company] said today that {claim}.", "According to [Company], {claim}."];
    // The lead states the news whole, as the direction does, whatever the opening said.
    const full = slotsOf(p.direction, p.slots.audience);
    const lead = fillFrame(p.direction.claim ? p.rng.pick(claims) : RELEASE_LEADS[p.group], full);
    const body = fillWithFacts([lead, ...notes], budget, p);
    return { ...block(body), prefix: "[City], [Date] —" };
  }
  const first = hasFact(p) || notes.length ? [frame(p, CONTEXTS), ...notes] : [];
  return block(fillWithFacts(first, budget, p));
}

/**
 * Whether a context memory's fact bears on the piece: it shares a word (not a number) with the direction or the
 * reference sentences drawn on, or there are no references and the memory is what the piece has to go on. A
 * company's headcount in a piece about a water bottle is a sentence about nothing, and the same in every piece.
 */
function bearsOn(p: Piece, fact: string): boolean {
  if (p.facts.length === 0) return true;
  const words = terms(fact).filter((t) => !/^\p{N}+$/u.test(t));
  if (words.length === 0) return false;
  p.pieceTerms ??= new Set(terms(`${p.direction.text} ${p.facts.map((f) => f.sentence).join(" ")}`));
  const known = p.pieceTerms;
  return words.some((t) => known.has(t));
}

/** A numbered list of steps: the passages' sentences behind ordinal leads, or short steps from the direction. */
function writeSteps(p: Piece, budget: number): string {
  const count = Math.min(8, Math.max(3, Math.round(budget / 60)));
  const steps: string[] = [];
  let words = 0;
  while (hasFact(p) && steps.length < count && (steps.length < 3 || words < budget)) {
    // A step takes the next sentences of the same passage up to its share, so each reads as a short paragraph.
    const share = (budget - words) / (count - steps.length);
    const parts = [takeFact(p) ?? ""];
    let stepWords = wordCount(parts[0]);
    while (hasFact(p) && p.facts[p.factIndex].source === p.lastSource && stepWords + nextFactWords(p) / 2 < share) {
      parts.push(takeFact(p) ?? "");
      stepWords += wordCount(parts[parts.length - 1]);
    }
    // The passage's sentences as written: an ordinal before a sentence that is not an instruction reads wrong.
    steps.push(parts.join(" "));
    words += stepWords;
  }
  // Without material, only a how-to or an announcement has steps the direction itself supports.
  if (steps.length === 0 && (p.group === "howto" || p.group === "announce"))
    for (const frames of STEP_FALLBACKS) {
      // A step no frame can write within the voice memory's limit is left out, not numbered empty.
      const step = frame(p, frames);
      if (step) steps.push(step);
    }
  return steps.map((s, i) => `${i + 1}. ${s}`).join("\n");
}

/** A quotation with placeholders for who said it: a spokesperson's in a release, a customer's in a case study. */
function writeQuote(p: Piece): string {
  if (p.format === "release") {
    const words = frame(p, QUOTES) ?? "";
    // Under a sentence limit the speaker goes on a line of their own, so the quotation keeps its words.
    if (p.rules.maxSentenceWords !== null) return `“${words}”\n— [Name], [Title] at [Company]`;
    return `“${words.replace(/\.$/, ",")}” said [Name], [Title] at [Company].`;
  }
  const words = frame(p, CUSTOMER_QUOTES) ?? "";
  return `> “${words}”\n>\n> — [Customer name], [Title], [Company]`;
}

/** A product's benefits as bullets, "- **Label**: the sentence", the label the sentence's first content words. */
function writeBenefits(p: Piece, budget: number): string {
  const lines: string[] = [];
  let words = 0;
  while (hasFact(p) && lines.length < 5 && (lines.length < 3 || words < budget)) {
    const fact = p.facts[p.factIndex];
    const sentence = takeFact(p) ?? "";
    words += wordCount(sentence);
    lines.push(`- **${labelOf(fact.sentence)}**: ${sentence}`);
  }
  if (lines.length === 0 && p.direction.claim) lines.push(`- **What it does**: ${capitalise(p.direction.claim)}.`);
  return lines.join("\n");
}

/**
 * A short label for a benefit: what its sentence says the product does, from its verb (a copula or an auxiliary
 * skipped: "It is made by Kestrel Outdoor, …" → "Made by Kestrel Outdoor"), at most four words up to the first
 * comma; a sentence without a verb falls back to its first run of content words.
 */
function labelOf(sentence: string): string {
  const label = predicateLabel(sentence) ?? contentRunLabel(sentence);
  return label.charAt(0).toUpperCase() + label.slice(1);
}

/** The words from a sentence's first main verb, up to four and the first punctuation, or null without a verb. */
function predicateLabel(sentence: string): string | null {
  const terms = (parse(sentence).json() as { terms: { text: string; tags: string[]; post: string }[] }[]).flatMap(
    (s) => s.terms,
  );
  let i = terms.findIndex((t) => t.tags.includes("Verb"));
  if (i < 0) return null;
  while (i < terms.length - 1 && (terms[i].tags.includes("Copula") || terms[i].tags.includes("Auxiliary"))) i++;
  const out: string[] = [];
  for (let k = i; k < terms.length && out.length < 4; k++) {
    out.push(terms[k].text);
    if (/[,;:.!?]/.test(terms[k].post)) break;
  }
  while (out.length > 1 && STOP_WORDS.has(out[out.length - 1].toLowerCase())) out.pop();
  return out.length > 0 && out.some((w) => !STOP_WORDS.has(w.toLowerCase())) ? out.join(" ") : null;
}

/** A sentence's first run of content words with a number, else its first of two or more, at most three words. */
function contentRunLabel(sentence: string): string {
  const words = sentence
    .replace(/[^\p{L}\p{N}\s'’-]/gu, " ")
    .split(/\s+/)
    .filter(Boolean);
  const runs: string[][] = [[]];
  for (const w of words) {
    if (STOP_WORDS.has(w.toLowerCase()) || w.length < 2) runs.push([]);
    else runs[runs.length - 1].push(w);
  }
  const found = runs.filter((r) => r.length > 0);
  const run = found.find((r) => r.some((w) => /\p{N}/u.test(w)) && r.length > 1) ??
    found.find((r) => r.length > 1) ??
    found[0] ?? ["Details"];
  return run.slice(0, 3).join(" ");
}

/**
 * The organisation a release is about, among the context memories' names: one the language library reads as an
 * organisation ("Fernhill Labs"), else the first that is not a place ("Europe" is not the company), else none.
 */
function organisationOf(names: string[]): string | undefined {
  const notPlaces = names.filter((n) => !parse(n).has("#Place"));
  return notPlaces.find((n) => parse(n).has("#Organization")) ?? notPlaces[0];
}

/**
 * A release's boilerplate: a paragraph saying what the organisation is (a context fact naming it, else a
 * placeholder to fill in), since when and where, then the media contact line.
 */
function aboutParagraph(p: Piece, name: string): string {
  const fact = p.notes.facts.find((f) => f.includes(name));
  const what = fact ? (/[.!?]$/.test(fact) ? fact : `${fact}.`) : `${name} [does what, for whom].`;
  return `${what} It was founded in [year] and is based in [City].\n\nMedia contact: [Name], [Email]`;
}

/** The close of an email (a sign-off, the voice's or a placeholder) or a release's "About" paragraph. */
function writeSignoff(p: Piece, section: SectionSpec): SectionBlock {
  if (p.format === "release") {
    const name = organisationOf(p.notes.names) ?? "[Company]";
    return { heading: section.heading ?? `About ${name}`, role: section.role, body: aboutParagraph(p, name) };
  }
  const signoff = p.rules.signoff ?? "[Your name]";
  return { heading: null, role: section.role, body: `Best regards,\n${signoff}` };
}
