/** Reading a direction whole (src/domain/generation/direction.ts) and its headline (headline.ts), on real directions. */
import { describe, expect, it } from "vitest";
import { readDirection } from "../../../src/domain/generation/direction.js";
import { headlineCase, titleOf } from "../../../src/domain/generation/headline.js";
import { Rng } from "../../../src/domain/generation/language.js";
import { doubledWords } from "../../../src/domain/writing-checks.js";

/** A direction, and what the writer must read in it. */
const CASES: {
  direction: string;
  kind: string;
  subject: string;
  claim?: string;
  action?: string;
  details?: string;
  audience?: string;
  numbers?: string[];
  entities?: string[];
}[] = [
  {
    direction: "Why engineering managers should adopt written decision logs when going remote",
    kind: "why",
    subject: "written decision logs",
    claim: "engineering managers should adopt written decision logs when going remote",
    audience: "engineering managers",
  },
  {
    direction: "Share a lesson from shipping our first product to 10,000 users",
    kind: "lesson",
    subject: "shipping our first product to 10,000 users",
    numbers: ["10,000 users"],
  },
  {
    direction: "Announce the new export feature: CSV and PDF exports for every plan from 3 March",
    kind: "announce",
    subject: "the new export feature",
    details: "CSV and PDF exports for every plan from 3 March",
    entities: ["CSV", "PDF"],
    numbers: ["3 March"],
  },
  {
    direction: "How to cut cloud costs by 30% without slowing releases",
    kind: "howto",
    subject: "cutting cloud costs by 30% without slowing releases",
    action: "cut cloud costs by 30% without slowing releases",
    numbers: ["30%"],
  },
  {
    direction: "Introduce the Stainless steel water bottle that keeps drinks cold for 24 hours",
    kind: "announce",
    subject: "the Stainless steel water bottle",
    claim: "the Stainless steel water bottle keeps drinks cold for 24 hours",
    numbers: ["24 hours"],
  },
  {
    direction: "Launch Acme Analytics, a dashboard for small business owners",
    kind: "announce",
    subject: "Acme Analytics",
    details: "a dashboard for small business owners",
    audience: "small business owners",
    entities: ["Acme Analytics"],
  },
  {
    direction: "Write a blog post about composting in small apartments for busy parents",
    kind: "topic",
    subject: "composting in small apartments",
    audience: "busy parents",
  },
  {
    direction: "Explain how remote teams can run better retrospectives",
    kind: "how",
    subject: "better retrospectives",
    claim: "remote teams can run better retrospectives",
  },
  {
    direction: "What every founder should know about pricing a SaaS product",
    kind: "what",
    subject: "pricing a SaaS product",
    entities: ["SaaS"],
  },
  {
    direction: "Insulating an old house before it gets a heat pump",
    kind: "topic",
    subject: "insulating an old house before it gets a heat pump",
  },
  {
    direction: "Convince the board to fund a four-day week pilot",
    kind: "topic",
    subject: "convincing the board to fund a four-day week pilot",
  },
  { direction: "What is RAG", kind: "topic", subject: "RAG" },
  {
    direction: "How Northwind cut support response times from 9 hours to 40 minutes",
    kind: "how",
    subject: "support response times",
    claim: "Northwind cut support response times from 9 hours to 40 minutes",
    numbers: ["9 hours", "40 minutes"],
    entities: ["Northwind"],
  },
  { direction: "Tips for new managers", kind: "topic", subject: "tips for new managers", audience: "new managers" },
  { direction: "Launch", kind: "topic", subject: "launch" },
];

describe("readDirection", () => {
  it.each(CASES)("reads $direction", (c) => {
    const d = readDirection(c.direction);
    expect(d.kind).toBe(c.kind);
    expect(d.subject).toBe(c.subject);
    if (c.claim) expect(d.claim).toBe(c.claim);
    if (c.action) expect(d.action).toBe(c.action);
    if (c.details) expect(d.details).toBe(c.details);
    if (c.audience) expect(d.audience).toBe(c.audience);
    for (const n of c.numbers ?? []) expect(d.numbers).toContain(n);
    for (const e of c.entities ?? []) expect(d.entities).toContain(e);
  });

  it("never cuts a number at its comma or a subject at a colon", () => {
    const d = readDirection("Share a lesson from shipping our first product to 10,000 users");
    expect(d.subject).toContain("10,000 users");
    expect(readDirection("Announce the new export feature: CSV and PDF").subject).toBe("the new export feature");
  });

  it("gives the same reading for the same direction", () => {
    const text = "How to cut cloud costs by 30% without slowing releases";
    expect(readDirection(text)).toEqual(readDirection(`${text}`));
  });
});

describe("titleOf", () => {
  const title = (direction: string, role: "headline" | "subject" = "headline") =>
    titleOf(readDirection(direction), role, new Rng(1));

  it("restates the direction whole as a Title Case headline", () => {
    expect(title("Why engineering managers should adopt written decision logs when going remote")).toBe(
      "Why Engineering Managers Should Adopt Written Decision Logs When Going Remote",
    );
    expect(title("How to cut cloud costs by 30% without slowing releases")).toBe(
      "How to Cut Cloud Costs by 30% Without Slowing Releases",
    );
    expect(title("Announce the new export feature: CSV and PDF exports for every plan from 3 March")).toMatch(
      /^(?:Introducing|Announcing) the New Export Feature: CSV and PDF Exports for Every Plan from 3 March$/,
    );
    expect(title("Introduce the Stainless steel water bottle that keeps drinks cold for 24 hours")).toMatch(
      /^(?:Introducing|Announcing) the Stainless Steel Water Bottle That Keeps Drinks Cold for 24 Hours$/,
    );
  });

  it("writes an email's subject in sentence case", () => {
    expect(title("How to cut cloud costs by 30% without slowing releases", "subject")).toBe(
      "How to cut cloud costs by 30% without slowing releases",
    );
  });

  it("never doubles a word or leaves a template slot", () => {
    for (const c of CASES) {
      const t = title(c.direction);
      expect(doubledWords(t), t).toEqual([]);
      expect(t).not.toMatch(/A Practical Guide|Matters Now|\{/);
      expect(t).not.toMatch(/\s(?:and|or|of|to|for|with|when|the|a)$/i);
    }
  });

  it("keeps acronyms and numbers as written", () => {
    expect(headlineCase("exports in CSV for 10,000 users")).toBe("Exports in CSV for 10,000 Users");
  });
});
