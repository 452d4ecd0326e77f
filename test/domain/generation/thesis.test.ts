import { describe, expect, it } from "vitest";
import { builtinThesis } from "../../../src/domain/generation/thesis.js";

const passages = [
  {
    reference_material_id: 1,
    reference_title: "Field notes",
    text: "Teams that kept written decision logs reopened fewer decisions and spent less time in meetings.",
  },
];

describe("builtinThesis", () => {
  it("agrees its verb with a plural topic", () => {
    const out = builtinThesis({
      direction: "Why engineering managers should adopt written decision logs when going remote",
      memories: [],
      passages,
      max_points: 2,
    });
    expect(out.thesis).toMatch(/^Written decision logs deserve attention: /);
  });

  it("agrees its verb with a singular topic", () => {
    const out = builtinThesis({
      direction: "Write about our onboarding checklist",
      memories: [],
      passages: [],
      max_points: 2,
    });
    expect(out.thesis).toMatch(/^Our onboarding checklist deserves attention, though/i);
  });
});
