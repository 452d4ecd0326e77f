/**
 * How the builtin writer uses what memories say (memory-rules.ts, replaced here by rules a test can see): the voice
 * rules over every prose sentence and list line, the sign-off, the context's audience, names and facts, and no
 * memory's sentences pasted.
 */
import { describe, expect, it, vi } from "vitest";
import { generateBuiltin } from "../../../src/domain/generation/builtin.js";
import { pastedRuns } from "../../../src/domain/writing-checks.js";
import { builtInTemplates, DIRECTIONS, inputOf, LOGS_REFERENCE, passagesOf } from "./writer-inputs.js";

vi.mock("../../../src/domain/generation/memory-rules.js", async (importOriginal) => {
  const { noVoiceRules } = await importOriginal<typeof import("../../../src/domain/generation/memory-rules.js")>();
  return {
    voiceRules: (memories: { content: string }[]) => ({
      ...noVoiceRules(),
      signoff: memories.length ? "Dana Whitfield" : null,
    }),
    // A visible rule: every sentence it is given gains a mark, so the test sees which sentences went through it.
    followVoiceRules: (sentences: string[]) => sentences.map((s) => `${s} ✓`),
    contextNotes: (memories: { content: string }[]) =>
      memories.length
        ? { audience: "heads of engineering", names: ["Fernhill Labs"], facts: ["Fernhill Labs has 11 staff"] }
        : { audience: null, names: [], facts: [] },
  };
});

const templates = builtInTemplates();
const template = (name: string) => templates.find((t) => t.name === name) ?? templates[0];
const logs = passagesOf(LOGS_REFERENCE, "the Halden notes");
const VOICE = { id: 1, kind: "voice" as const, title: "Voice", content: "Sign off as Dana Whitfield." };
const CONTEXT = {
  id: 2,
  kind: "context" as const,
  title: "Company",
  content:
    "Our readers are heads of engineering at companies of 50 to 500 people in Europe. We are Fernhill Labs, with 11 staff in Bristol.",
};
const memories = [VOICE, CONTEXT];

describe("generateBuiltin with memories", () => {
  it("passes every prose paragraph and list line through the voice rules", () => {
    for (const name of ["Blog post", "How-to guide", "Product description"]) {
      const out = generateBuiltin(inputOf(template(name), DIRECTIONS[3], logs, 7, { memories }));
      const prose = out.text.split("\n").filter((l) => /^(?:\d+\. |- |[A-Z“])/.test(l) && /[.?]$|✓$/.test(l));
      expect(prose.length).toBeGreaterThan(2);
      for (const line of prose) expect(line, `${name}: ${line}`).toMatch(/✓$/);
    }
  });

  it("signs an email off with the voice's sign-off", () => {
    const out = generateBuiltin(inputOf(template("Email"), DIRECTIONS[0], logs, 7, { memories }));
    expect(out.text).toMatch(/Best regards,\nDana Whitfield$/);
  });

  it("uses the context's audience, names and facts without pasting the memory", () => {
    const blog = generateBuiltin(inputOf(template("Blog post"), DIRECTIONS[1], [], 7, { memories }));
    expect(blog.text).toContain("heads of engineering");
    expect(blog.text).toContain("Fernhill Labs has 11 staff.");
    const release = generateBuiltin(inputOf(template("Press release"), DIRECTIONS[2], logs, 7, { memories }));
    // The release's About paragraph names the organisation the context names, not a place it names ("Europe",
    // "Bristol"), and states a context fact about it.
    expect(release.text).toMatch(
      /^## About the organisation\n\nFernhill Labs has 11 staff\. It was founded in \[year\]/m,
    );
    for (const out of [blog, release]) expect(pastedRuns(CONTEXT.content, out.text)).toEqual([]);
  });

  it("leaves out a context fact that bears on neither the direction nor the references", () => {
    const blog = generateBuiltin(inputOf(template("Blog post"), DIRECTIONS[1], logs, 7, { memories }));
    expect(blog.text).toContain("heads of engineering");
    expect(blog.text).not.toContain("11 staff");
    const bristol = generateBuiltin(
      inputOf(template("Blog post"), "Why Fernhill Labs hires its staff in Bristol", logs, 7, { memories }),
    );
    expect(bristol.text).toContain("Fernhill Labs has 11 staff.");
  });

  it("writes the same text without memories as the rules' neutral answer gives", () => {
    const out = generateBuiltin(inputOf(template("Email"), DIRECTIONS[0], logs, 7));
    expect(out.text).toMatch(/Best regards,\n\[Your name\]$/);
    expect(out.text).not.toContain("heads of engineering");
  });
});
