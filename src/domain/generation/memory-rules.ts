/**
 * What memories ask of a generation, in one place for the writers: the voice memories' rules (voiceRules), a block's
 * sentences rewritten to follow them (followVoiceRules, followVoiceRulesReport), and the context memories' audience,
 * names and facts, restated so that none is pasted (contextNotes); and the checks of a text against them
 * (voiceBreaches, pastedOutsideQuotes). Each job lives in its own file beside this one.
 */
export { type ContextMemory, type ContextNotes, contextNotes } from "./context-notes.js";
export { pastedOutsideQuotes, type VoiceBreach, voiceBreaches } from "./memory-checks.js";
export { sentenceWords } from "./sentence-split.js";
export { type MemoryText, noVoiceRules, type VoiceRules, voiceRules } from "./voice-memory.js";
export {
  type FollowOptions,
  followVoiceRules,
  followVoiceRulesReport,
  type VoiceRulesReport,
} from "./voice-rewrite.js";
