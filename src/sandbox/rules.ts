/**
 * Fault rules (WireMock's stubs, MockServer's expectations): a fault, a delay or an error status answered to the
 * requests a rule matches (method, path pattern, key id, body fields), a given number of times or with a
 * probability, until removed. Kept in memory, in the order they were added: the first that matches answers. A rule
 * whose answer is `engine` answers the server's calls to the on-prem model server instead (engine-faults.ts). Held
 * by test/sandbox/rules.test.ts and engine-faults.test.ts.
 */
import * as v from "valibot";
import { invalidInput } from "../domain/errors.js";
import type { LlmConfig } from "../domain/generation/llm.js";
import type { RequestState, RoutedState, Stage } from "../http/pipeline/state.js";
import { described } from "../http/schemas.js";
import { ENGINE_FAULTS, type EngineAnswer } from "./engine-faults.js";
import { pathPattern } from "./path-pattern.js";
import { applyPreferences, type Preferences, preferencesOf } from "./prefer.js";

/** What a rule matches: each part optional; a request matches when it matches all that are given. */
const MatchSchema = v.strictObject({
  method: v.optional(described(v.pipe(v.string(), v.regex(/^[A-Za-z]{1,10}$/)), "The method (any case).")),
  path: v.optional(
    described(
      v.pipe(v.string(), v.startsWith("/api/v1/"), v.maxLength(2000)),
      "The path under /api/v1/, `*` for any characters.",
    ),
  ),
  key_id: v.optional(described(v.pipe(v.string(), v.maxLength(100)), "The id of the key that calls (key_…).")),
  body: v.optional(
    described(
      v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.null()])),
      "Top-level body fields and the values they must have.",
    ),
  ),
  engine: v.optional(
    described(v.picklist(["llm"]), "`llm`: the rule answers the server's calls to the on-prem model server."),
  ),
});

/** What a rule answers: the preferences of a Prefer header, as fields (prefer.ts reads them). */
const AnswerSchema = v.pipe(
  v.strictObject({
    status: v.optional(described(v.pipe(v.number(), v.integer()), "An error status of the API (429, 503, ...).")),
    error_code: v.optional(described(v.string(), "An error code of the API's error table.")),
    delay: v.optional(described(v.string(), "A delay (`2s`, `250ms`) or a random range (`1s-3s`), at most 30 s.")),
    fault: v.optional(described(v.string(), "reset, empty, truncated or stream_error_after=N.")),
    engine: v.optional(
      described(
        v.picklist(ENGINE_FAULTS),
        "What the on-prem model server does: answers after `delay` (none: after the server's timeout), fails, or answers garbage.",
      ),
    ),
  }),
  v.check((a) => Object.keys(a).length > 0, "must give at least one of status, error_code, delay, fault, engine"),
);

/** A rule as POST /_sandbox/faults takes it. */
export const RuleSchema = v.strictObject({
  match: v.optional(MatchSchema, {}),
  answer: AnswerSchema,
  times: v.optional(
    described(v.pipe(v.number(), v.integer(), v.minValue(1)), "How many requests it answers, then goes."),
  ),
  probability: v.optional(
    described(v.pipe(v.number(), v.gtValue(0), v.maxValue(1)), "The share of matching requests it answers (0 to 1]."),
  ),
});

/** A rule as given. */
export type RuleInput = v.InferOutput<typeof RuleSchema>;

/** A rule as kept and listed: its id, and how many requests it may still answer (null: no limit). */
export interface Rule extends Omit<RuleInput, "times"> {
  id: string;
  times_left: number | null;
}

/** The preferences of a rule's answer, or the 400 naming the field at fault (`body.answer`). */
function preferencesOfAnswer(answer: RuleInput["answer"]): Preferences {
  const items = Object.entries(answer)
    .filter(([name]) => name !== "engine")
    .map(([name, value]) => `${name}=${value}`);
  return preferencesOf(items, "body.answer");
}

/**
 * The answer of an engine rule, or the 400 naming what cannot go with it: the model server's calls are matched by
 * `engine` alone (a call has no method, path or key of its own), and answered by `engine` with, when slow, a delay.
 */
function engineAnswerOf(input: RuleInput, id: string, prefs: Preferences): EngineAnswer | undefined {
  const { engine, delay, ...other } = input.answer;
  const { engine: target, ...requestMatch } = input.match;
  if (engine === undefined) {
    if (target !== undefined) throw invalidInput("body.answer.engine", "answer.engine is required with match.engine");
    return undefined;
  }
  const extra = Object.keys(requestMatch)[0];
  if (extra)
    throw invalidInput(`body.match.${extra}`, `match.${extra} cannot go with answer.engine: match.engine only`);
  const also = Object.keys(other)[0] ?? (delay !== undefined && engine !== "slow" ? "delay" : undefined);
  if (also) throw invalidInput(`body.answer.${also}`, `answer.${also} cannot go with answer.engine ${engine}`);
  return { fault: engine, rule: id, delayMs: prefs.delayMs, delayMaxMs: prefs.delayMaxMs };
}

/** Whether a request matches a rule's match. */
function matches(rule: Rule, state: RoutedState): boolean {
  const m = rule.match;
  const principal = state.principal;
  if (m.method !== undefined && m.method.toUpperCase() !== state.request.method) return false;
  if (m.path !== undefined && !pathPattern(m.path).test(state.url.pathname)) return false;
  if (m.key_id !== undefined && (principal?.kind !== "key" || principal.key.id !== m.key_id)) return false;
  if (m.body === undefined) return true;
  const body = state.body as Record<string, unknown> | undefined;
  return Object.entries(m.body).every(
    ([field, value]) => body !== null && typeof body === "object" && body[field] === value,
  );
}

/** The fault rules of a sandbox. */
export class FaultRules {
  private rules: { rule: Rule; prefs: Preferences; engine?: EngineAnswer }[] = [];
  private next = 1;

  /** `random` draws the rules' probabilities (seeded with `serve --seed`). */
  constructor(private readonly random: () => number = Math.random) {}

  /** Adds a rule (its answer checked as a Prefer header is); the rule as kept. */
  add(input: RuleInput): Rule {
    const prefs = preferencesOfAnswer(input.answer);
    const id = `flt_${this.next}`;
    const engine = engineAnswerOf(input, id, prefs);
    this.next++;
    const { times, ...rest } = input;
    const rule: Rule = { id, ...rest, times_left: times ?? null };
    this.rules.push({ rule, prefs, engine });
    return rule;
  }

  /** The rules, in the order they are tried. */
  list(): Rule[] {
    return this.rules.map((r) => r.rule);
  }

  /** Removes one rule; whether it was there. */
  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.rule.id !== id);
    return this.rules.length < before;
  }

  /** Removes every rule. */
  clear(): void {
    this.rules = [];
  }

  /**
   * The answer of the first rule that matches the request and, with a probability, draws it; a rule with `times`
   * counts the request and goes after its last.
   */
  answerFor(state: RoutedState): Preferences | undefined {
    return this.rules.find((entry) => !entry.engine && matches(entry.rule, state) && this.draws(entry.rule))?.prefs;
  }

  /** The answer of the first engine rule that draws a call to the model server, counted as a request's is. */
  engineAnswerFor(): EngineAnswer | undefined {
    return this.rules.find((entry) => entry.engine && this.draws(entry.rule))?.engine;
  }

  /** Whether a matching rule answers (its probability drawn), counting it and removing it after its last. */
  private draws(rule: Rule): boolean {
    if (rule.probability !== undefined && this.random() >= rule.probability) return false;
    if (rule.times_left !== null && --rule.times_left === 0) this.remove(rule.id);
    return true;
  }

  /** Whether there is no rule: the stage then does nothing. */
  get empty(): boolean {
    return this.rules.length === 0;
  }
}

/**
 * The rules' stage, on requests under /api/v1/ whose input is valid: the first rule that answers the request applies
 * its answer as a Prefer header's would be (prefer.ts applyPreferences). Synchronous while there are no rules.
 */
export function rulesStage(
  rules: FaultRules,
  kept: WeakMap<RequestState, Preferences>,
  now: () => number,
  llm?: LlmConfig,
): Stage<RoutedState> {
  return function faultRules(state) {
    if (rules.empty || !state.url.pathname.startsWith("/api/v1/")) return;
    const prefs = rules.answerFor(state);
    if (prefs) return applyPreferences(state, prefs, kept, now, llm);
  };
}
