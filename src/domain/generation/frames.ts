/**
 * Frames and their slots: a direction's parts as the values a frame's {slots} take, a frame picked with the
 * piece's PRNG among those whose slots the direction fills (and not yet used in the piece), and the frame filled.
 */
import type { Direction, DirectionKind } from "./direction.js";
import { capitalise, type Rng } from "./language.js";

/** The groups frames are kept in: by the direction's angle, and "any" for frames every angle may use. */
export type FrameGroup = "claim" | "howto" | "announce" | "lesson" | "topic" | "any";

/** Frames by group. */
export type Frames = Partial<Record<FrameGroup, string[]>>;

/** A slot's value, or null when the direction has nothing for it. */
export type Slots = Record<string, string | null>;

/** The frame group of a direction's kind. */
export function groupOf(kind: DirectionKind): FrameGroup {
  return kind === "why" || kind === "how" || kind === "what" ? "claim" : kind;
}

/** The slot values of a direction: its parts, the verb endings its subject agrees with, and an audience. */
export function slotsOf(d: Direction, audience: string | null): Slots {
  const about =
    d.kind === "howto"
      ? `how to ${d.action}`
      : d.kind === "lesson"
        ? `what ${d.subject} taught us`
        : d.claim && d.kind !== "announce"
          ? `${d.kind} ${d.claim}`
          : d.subject;
  return {
    subject: d.subject,
    short: d.short,
    claim: d.claim,
    action: d.action,
    details: d.details,
    about,
    audience,
    be: d.plural ? "are" : "is",
    have: d.plural ? "have" : "has",
    s: d.plural ? "" : "s",
    es: d.plural ? "" : "es",
  };
}

/** Whether every slot a frame names has a value. */
function fits(frame: string, slots: Slots): boolean {
  for (const m of frame.matchAll(/\{(\w+)\}/g)) if (!slots[m[1].toLowerCase()]) return false;
  return true;
}

/**
 * A frame of the group (or "any"), one whose slots are filled and not in `used`; undefined when none is left. With
 * `suits` (a voice memory's sentence limit), only a frame whose filled text suits it is picked, and one that names
 * the direction when the set has such frames.
 */
export function pickFrame(
  frames: Frames,
  group: FrameGroup,
  slots: Slots,
  rng: Rng,
  used: Set<string>,
  suits?: (filled: string) => boolean,
): string | undefined {
  const open = [...(frames[group] ?? []), ...(frames.any ?? [])].filter((f) => fits(f, slots) && !used.has(f));
  // A frame that breaks the voice memory's limit would be split or cut: none is better. The few short frames left
  // would recur across pieces, so those that name the direction's subject go first.
  const suited = suits ? open.filter((f) => suits(fillFrame(f, slots))) : open;
  const names = (f: string) => /\{(?:short|subject|claim|action|about|details)\}/i.test(f);
  // A set with frames that name the subject uses only those under a limit, or none: its generic ones would recur.
  const pool = suits && open.some(names) ? suited.filter(names) : suited;
  if (pool.length === 0) return undefined;
  const frame = rng.pick(pool);
  used.add(frame);
  return fillFrame(frame, slots);
}

/** A frame with its slots filled; a slot written with a capital capitalises its value. */
export function fillFrame(frame: string, slots: Slots): string {
  const filled = frame.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = slots[name.toLowerCase()] ?? "";
    return name[0] === name[0].toUpperCase() && name.length > 1 ? capitalise(value) : value;
  });
  // A frame word next to the same word of a value ("about about"), and a value's own end punctuation.
  return filled
    .replace(/(?<![\p{L}\p{N}])([\p{L}]+)\s+\1(?![\p{L}\p{N}])/giu, "$1")
    .replace(/([.!?])([.!?])$/u, "$2")
    .replace(/\s{2,}/g, " ");
}
