/**
 * Learned traits are bounded in length, not only in count: a substitution to a huge word multiplied every later
 * generation of its workspace (hundreds of megabytes, then a 500) and could not be unlearned. Profiles stored before
 * the bounds are read with them.
 */
import { describe, expect, it } from "vitest";
import {
  applySubstitutions,
  emptyTraits,
  isVoiceSubstitution,
  MAX_PHRASE_CHARS,
  MAX_SUBSTITUTION_CHARS,
  parseTraits,
} from "../../src/domain/generation/voice.js";
import { analyzeEdit } from "../../src/domain/learning/analyze.js";
import { foldAnalysis } from "../../src/domain/learning/fold.js";
import { makeHarness } from "../helpers/harness.js";

const HUGE = "x".repeat(400_000);

describe("learned substitutions and phrases", () => {
  it("keeps a writer's substitutions and drops runaway ones", () => {
    expect(isVoiceSubstitution({ from: "utilize", to: "use" })).toBe(true);
    expect(isVoiceSubstitution({ from: "ai", to: "artificial intelligence" })).toBe(true);
    expect(isVoiceSubstitution({ from: "compost", to: HUGE })).toBe(false);
    expect(isVoiceSubstitution({ from: "b", to: "b".repeat(49) })).toBe(false);
    expect(isVoiceSubstitution({ from: "y".repeat(MAX_SUBSTITUTION_CHARS + 1), to: "z" })).toBe(false);
  });

  it("applies a substitution along a 440,000-character line in one pass, not once per match over all before it", () => {
    // A model's answer may be one line of up to 500,000 characters. Looking back over the whole line for each match
    // took minutes of a generation thread (past the suite's test timeout); one pass takes milliseconds.
    const line = "We utilize it. ".repeat(30_000);
    const traits = { ...emptyTraits(), substitutions: [{ from: "utilize", to: "use", count: 3, samples: 3 }] };
    const out = applySubstitutions(line, traits);
    expect(out).toBe("We use it. ".repeat(30_000));
  });

  it("a finalization that swaps a word for a huge one teaches nothing of it", () => {
    const result = analyzeEdit({
      generated: "We like compost in the garden. The garden grows well.",
      finalized: `We like ${HUGE} in the garden. The garden grows well.`,
      edit_seconds: 10,
    });
    // The analysis sees the swap; the profile does not take it.
    expect(result.substitutions.map((s) => s.from)).toContain("compost");
    const traits = foldAnalysis(emptyTraits(), result, 0);
    expect(traits.substitutions.map((s) => s.from)).not.toContain("compost");
    expect(JSON.stringify(traits).length).toBeLessThan(10_000);
  });

  it("keeps an acronym spelled out, a writer's usual swap", () => {
    const result = analyzeEdit({
      generated: "We use AI daily in planning. It helps the team.",
      finalized: "We use generative artificial intelligence daily in planning. It helps the team.",
      edit_seconds: 10,
    });
    const traits = foldAnalysis(emptyTraits(), result, 0);
    expect(traits.substitutions).toContainEqual(
      expect.objectContaining({ from: "ai", to: "generative artificial intelligence", count: 1, samples: 1 }),
    );
  });

  it("phrases over MAX_PHRASE_CHARS are not kept", () => {
    const long = `${"w".repeat(MAX_PHRASE_CHARS)} tail`;
    const result = analyzeEdit({
      generated: "The plan works. It ships on time.",
      finalized: `The plan works. ${long} ${long}. It ships on time.`,
      edit_seconds: 10,
    });
    const traits = foldAnalysis(emptyTraits(), result, 0);
    for (const p of traits.preferred_phrases) expect(p.phrase.length).toBeLessThanOrEqual(MAX_PHRASE_CHARS);
  });
});

describe("a profile stored before the bounds", () => {
  it("is read without its runaway entries: generation writes normally and the profile shows them gone", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    const stored = {
      ...emptyTraits(),
      substitutions: [
        { from: "planning", to: HUGE, count: 1 },
        { from: "utilize", to: "use", count: 1 },
      ],
      preferred_phrases: [{ phrase: HUGE, count: 1 }],
    };
    h.services.store.learning.saveProfile({
      id: "vp_legacy",
      accountId: h.a.id,
      workspaceId: h.a.ws1,
      traits: stored,
      sampleCount: 1,
      now: new Date(h.clock.now()).toISOString(),
    });
    // Stored before evidence was kept: read as one sample, with no contents behind it.
    expect(parseTraits(JSON.stringify(stored)).substitutions).toEqual([
      { from: "utilize", to: "use", count: 1, samples: 1, content_ids: [] },
    ]);

    const gen = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "Weekly planning reviews: planning in writing, planning ahead" },
    });
    expect(gen.status).toBe(201);
    expect(gen.body.content).not.toContain("xxxx");
    expect(gen.body.content.length).toBeLessThan(50_000);

    const profile = await h.send("GET", "/api/v1/voice-profiles/vp_legacy", { auth: key });
    expect(profile.body.traits.substitutions).toEqual([
      { from: "utilize", to: "use", count: 1, samples: 1, content_ids: [] },
    ]);
    expect(profile.body.traits.preferred_phrases).toEqual([]);
  });
});
