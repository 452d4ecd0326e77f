/**
 * The rules a workspace's memories set for a piece: a voice memory's instructions (sentence length, words to avoid
 * and prefer, person, exclamations, contractions, tone, a sign-off) and a context memory's notes (audience, names,
 * facts). This version reads nothing and follows nothing: neutral rules, so the writer's calls are in place.
 */

/** What voice memories ask of the text; null where they say nothing. */
export interface VoiceRules {
  maxSentenceWords: number | null;
  avoid: string[];
  prefer: { from: string; to: string }[];
  person: "you" | "we" | null;
  exclamations: boolean | null;
  contractions: boolean | null;
  tone: string | null;
  signoff: string | null;
}

/** What context memories tell the writer: who the piece is for, names to use, short facts it may state. */
export interface ContextNotes {
  audience: string | null;
  names: string[];
  facts: string[];
}

type Memory = { kind: "voice" | "context"; content: string };

/** The voice memories' rules (neutral here: no rule). */
export function voiceRules(_memories: Memory[]): VoiceRules {
  return {
    maxSentenceWords: null,
    avoid: [],
    prefer: [],
    person: null,
    exclamations: null,
    contractions: null,
    tone: null,
    signoff: null,
  };
}

/** A block's sentences made to follow the rules (unchanged here). */
export function followVoiceRules(sentences: string[], _rules: VoiceRules): string[] {
  return sentences;
}

/** The context memories' notes (none here). */
export function contextNotes(_memories: Memory[]): ContextNotes {
  return { audience: null, names: [], facts: [] };
}
