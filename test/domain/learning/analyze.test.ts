/**
 * Learning learns only what an editor meant: a substitution from an aligned replacement inside one sentence, whole
 * sentences and opening clauses as phrases, never a run cut across sentences or out of a clause.
 */
import { describe, expect, it } from "vitest";
import { analyzeEdit } from "../../../src/domain/learning/analyze.js";

const analyze = (generated: string, finalized: string) => analyzeEdit({ generated, finalized, edit_seconds: 60 });

/** The ordinary edit of issue 29: the title fixed, "Consider adopt." deleted, a cut sentence finished. */
const GENERATED = `# Why Why Engineering Managers Should Adopt Written Decision Logs When Matters Now

Let's talk about Why engineering managers should adopt written decision logs when. Consider adopt. Teams that keep a decision log spend less time in meetings.

## Next steps

Start a decision log this week. Share it with the team.`;
const FINALIZED = `# Why Engineering Managers Should Adopt a Written Decision Log When Going Remote

Let's talk about why engineering managers should adopt written decision logs when teams go remote. Teams that keep a decision log spend less time in meetings.

## Next steps

Start a decision log this week. Share it with the team.`;

describe("what an edit teaches", () => {
  it("learns from the issue's ordinary edit only the deleted sentence, nothing of the title or a cut clause", () => {
    const r = analyze(GENERATED, FINALIZED);
    expect(r.substitutions).toEqual([]);
    expect(r.removed_phrases).toEqual(["Consider adopt"]);
    expect(r.added_phrases).toEqual([]);
  });

  it("learns a substitution from a replacement inside one sentence whose words around it stayed", () => {
    const r = analyze(
      "Our teams utilize written plans every week. Reviews follow on Fridays.",
      "Our teams use written plans every week. Reviews follow on Fridays.",
    );
    expect(r.substitutions).toEqual([{ from: "utilize", to: "use", count: 1 }]);
  });

  it("follows a sentence the writer split in two, and learns from each part", () => {
    const r = analyze(
      "We utilize reviews every week, and we utilize written agendas for every meeting.",
      "We use reviews every week. We use written agendas for every meeting.",
    );
    expect(r.substitutions).toEqual([{ from: "utilize", to: "use", count: 2 }]);
  });

  it("never learns across a sentence boundary or from a deletion beside an unrelated insertion", () => {
    const r = analyze(
      "Managers adopt written logs. When teams go remote, decisions drift. Reviews help.",
      "Managers adopt written logs when remote. Teams drift apart. Reviews help.",
    );
    expect(r.substitutions).toEqual([]);
    const rewritten = analyze(
      "Teams should adopt written decision logs when they go remote. Reviews help.",
      "Teams going remote start a log. Reviews help.",
    );
    expect(rewritten.substitutions).toEqual([]);
    for (const p of [...rewritten.removed_phrases, ...rewritten.added_phrases])
      expect([
        "Teams should adopt written decision logs when they go remote",
        "Teams going remote start a log",
      ]).toContain(p);
  });

  it("learns no grammar fix, function word or change of part of speech as a substitution", () => {
    expect(analyze("The decision logs help every team.", "The decision log helps every team.").substitutions).toEqual(
      [],
    );
    expect(analyze("Teams ship their plans fast.", "Teams ship their plans software.").substitutions).toEqual([]);
    expect(analyze("Teams meet on the Friday call.", "Teams meet on a Friday call.").substitutions).toEqual([]);
    expect(analyze("We keep the logs when we ship.", "We keep the log we ship.").substitutions).toEqual([]);
  });

  it("learns a deleted opening clause, not the sentence it opened, and an added one as preferred", () => {
    const r = analyze(
      "In today's fast-paced world, teams plan their work in writing. Reviews follow.",
      "Teams plan their work in writing. Reviews follow.",
    );
    expect(r.removed_phrases).toEqual(["In today's fast-paced world"]);
    const added = analyze(
      "Teams plan their work in writing. Reviews follow.",
      "In short, teams plan their work in writing. Reviews follow.",
    );
    expect(added.added_phrases).toEqual(["In short"]);
  });

  it("never learns a run cut out of the middle of a clause", () => {
    const r = analyze(
      "Why engineering managers should adopt written decision logs matters for every remote team today.",
      "Why decision logs matters for every remote team today.",
    );
    expect(r.removed_phrases).toEqual([]);
    expect(r.substitutions).toEqual([]);
  });

  it("treats a title as a sample under the same rules, and never learns a heading as a phrase", () => {
    const r = analyze(
      "# How Teams Utilize Decision Logs\n\nLogs help.\n\n## Next steps\n\nStart today.",
      "# How Teams Use Decision Logs\n\nLogs help.\n\nStart today.",
    );
    expect(r.substitutions).toEqual([{ from: "utilize", to: "use", count: 1 }]);
    expect(r.removed_phrases).toEqual([]);
  });

  it("reads list items without their markers", () => {
    const r = analyze(
      "- Utilize the weekly checklist today.\n- Consider adopt.\n- Share the log with everyone.",
      "- Use the weekly checklist today.\n- Share the log with everyone.",
    );
    expect(r.substitutions).toEqual([{ from: "utilize", to: "use", count: 1 }]);
    expect(r.removed_phrases).toEqual(["Consider adopt"]);
  });

  it("learns no whole sentences from an edit that rewrote most of the text", () => {
    const r = analyze(
      "Plans help. Reviews follow. Teams ship.",
      "Our roadmap is public. Customers vote on it. Teams ship.",
    );
    expect(r.removed_phrases).toEqual([]);
    expect(r.added_phrases).toEqual([]);
  });
});
