/** Reading a model server's answers: a generation's title (prompt.ts titleOf) and a thesis's JSON (withoutFence). */
import { describe, expect, it } from "vitest";
import { titleOf } from "../../src/domain/generation/prompt.js";
import { withoutFence } from "../../src/domain/generation/thesis.js";

describe("titleOf", () => {
  it("takes the first heading or Subject line, else the first line, without marks and blanks", () => {
    expect(titleOf("Intro line\n\n# **Quarter planning** \n\nBody.")).toBe("Quarter planning");
    expect(titleOf("Subject: Launch moves to Monday\n\nHi Sam,")).toBe("Launch moves to Monday");
    expect(titleOf("\n\n  *Plain first line*  \nmore")).toBe("Plain first line");
    expect(titleOf("")).toBe("");
    expect(titleOf("x".repeat(400)).length).toBe(300);
  });

  // Found by review: /[*\s]+$/ was retried from every blank of a long inner run (minutes for 200,000).
  it("reads a line with a long run of blanks inside it", () => {
    expect(titleOf(`# a${" ".repeat(200_000)}b`)).toBe("a");
    expect(titleOf(`a${" *".repeat(200_000)}`)).toBe("a");
    // The cut at 300 characters leaves no marks or blanks at the end either.
    expect(titleOf(`${"w".repeat(298)} *end`)).toBe("w".repeat(298));
  });
});

describe("withoutFence", () => {
  it("takes the JSON out of a fenced answer, and leaves an unfenced one", () => {
    expect(withoutFence('```json\n{"thesis":"x"}\n```')).toBe('{"thesis":"x"}');
    expect(withoutFence('  ```\n{"a":1}\n```  \n')).toBe('{"a":1}');
    expect(withoutFence('{"a":1}')).toBe('{"a":1}');
  });

  it("reads an answer with a long run of blanks inside it", () => {
    const raw = `{"thesis":"x"${" ".repeat(200_000)},"a":1}`;
    expect(JSON.parse(withoutFence(`\`\`\`json\n${raw}\n\`\`\``))).toEqual({ thesis: "x", a: 1 });
  });
});
