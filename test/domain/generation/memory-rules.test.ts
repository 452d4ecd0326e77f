import { describe, expect, it } from "vitest";
import {
  contextNotes,
  followVoiceRules,
  followVoiceRulesReport,
  noVoiceRules,
  pastedOutsideQuotes,
  sentenceWords,
  type VoiceRules,
  voiceBreaches,
  voiceRules,
} from "../../../src/domain/generation/memory-rules.js";
import { doubledWords, isFragment, pastedRuns } from "../../../src/domain/writing-checks.js";

const voice = (content: string) => voiceRules([{ kind: "voice", content }]);
const rules = (over: Partial<VoiceRules>): VoiceRules => ({ ...noVoiceRules(), ...over });

describe("voiceRules", () => {
  it.each([
    ["Use short sentences of under 12 words.", 11],
    ["Keep sentences below 15 words.", 14],
    ["Sentences of at most 20 words.", 20],
    ["Keep every sentence to twelve words or fewer.", 12],
    ["No sentence should run to more than 25 words; shorter is better.", 25],
    ["Sentences must be no more than 18 words long.", 18],
    ["- Max 10 words per sentence", 10],
    ["Limit sentences to 15 words.", 15],
    ["No sentence over 20 words.", 20],
    ["Don't write sentences longer than 18 words.", 18],
    ["Some sentences run over 30 words in our old posts.", null],
    ["Write short, punchy sentences.", 20],
  ])("reads the sentence length of %j", (content, max) => {
    expect(voice(content).maxSentenceWords).toBe(max);
  });

  it.each([
    ["Avoid the word 'leverage'.", ["leverage"]],
    ["Never say synergy.", ["synergy"]],
    ["Don't use jargon like paradigm, bandwidth and circle back.", ["paradigm", "bandwidth", "circle back"]],
    ["Never say “synergy” or “seamless”.", ["synergy", "seamless"]],
    ["Avoid buzzwords such as disrupt, ideate.", ["disrupt", "ideate"]],
    ["Please do not use the words robust or holistic.", ["robust", "holistic"]],
    ["Banned words: leverage, synergy, ecosystem.", ["leverage", "synergy", "ecosystem"]],
    ["We never use the word 'disrupt'.", ["disrupt"]],
  ])("reads the words to avoid in %j", (content, words) => {
    expect(voice(content).avoid).toEqual(words);
  });

  it.each([
    ["Say 'use' instead of 'utilize'.", "utilize", "use"],
    ["Prefer 'customers' to 'users'.", "users", "customers"],
    ["Write 'start' not 'commence'.", "commence", "start"],
    ["Replace “utilise” with “use”.", "utilise", "use"],
    ["Say use rather than utilize.", "utilize", "use"],
    ["Instead of 'leverage', say 'use'.", "leverage", "use"],
    ["Call them customers, not clients.", "clients", "customers"],
    ["'Customers', not 'users'.", "users", "customers"],
    ["Always say team, never squad.", "squad", "team"],
    ["Refer to them as members rather than users.", "users", "members"],
  ])("reads the preferred word of %j", (content, from, to) => {
    expect(voice(content).prefer).toEqual([{ from, to }]);
  });

  it.each([
    ["Address the reader as you.", "you"],
    ["Speak to the reader directly.", "you"],
    ["Write in the second person.", "you"],
    ["Write in the first person plural.", "we"],
    ["Write as we, not I.", "we"],
    ["Use 'you' and 'your'.", "you"],
    ["We speak as a team: use 'we', not 'I'.", "we"],
  ])("reads the person of %j", (content, person) => {
    expect(voice(content).person).toBe(person);
  });

  it("reads punctuation, contractions, tone and sign-off in their usual wordings", () => {
    expect(voice("Never use exclamation marks.").exclamations).toBe(false);
    expect(voice("No exclamation points!").exclamations).toBe(false);
    expect(voice("Use contractions.").contractions).toBe(true);
    expect(voice("No contractions, please.").contractions).toBe(false);
    expect(voice("Avoid contractions.").contractions).toBe(false);
    expect(voice("Our tone is warm and direct, never stuffy.").tone).toBe("warm and direct");
    expect(voice("Be formal.").tone).toBe("formal");
    expect(voice("Sign off as Dana from Acme.").signoff).toBe("Dana from Acme");
    expect(voice("End every email with 'Cheers, Dana'.").signoff).toBe("Cheers, Dana");
    expect(voice("Sound confident but humble.").tone).toBe("confident and humble");
    expect(voice("Keep it casual.").tone).toBe("casual");
    expect(voice("Contractions are fine.").contractions).toBe(true);
  });

  it("reads several rules from one memory and ignores sentences that state none", () => {
    const r = voice(
      "We are a small team that loves coffee.\nKeep sentences under 12 words and never use exclamation marks.\n" +
        "- Say 'use' instead of 'utilize'\n- Address the reader as you\nAvoid long intros about the market.",
    );
    expect(r).toEqual(
      rules({
        maxSentenceWords: 11,
        exclamations: false,
        prefer: [{ from: "utilize", to: "use" }],
        person: "you",
      }),
    );
    expect(voice("Our office is in Berlin.")).toEqual(noVoiceRules());
    expect(voiceRules([{ kind: "context", content: "Never say synergy." }])).toEqual(noVoiceRules());
  });
});

describe("followVoiceRules", () => {
  it("uses preferred words, whole words only, keeping case and inflection", () => {
    const r = rules({
      prefer: [
        { from: "utilize", to: "use" },
        { from: "users", to: "customers" },
      ],
    });
    expect(
      followVoiceRules(
        ["Teams utilized the export, and Utilizing it saves time.", "Our users like it.", "The superusers stay."],
        r,
      ),
    ).toEqual(["Teams used the export, and Using it saves time.", "Our customers like it.", "The superusers stay."]);
  });

  it("replaces avoided words with a plain synonym, drops avoidable modifiers, and drops what cannot be fixed", () => {
    const r = rules({ avoid: ["leverage", "seamless", "synergy", "widget"] });
    const report = followVoiceRulesReport(
      [
        "Teams leveraged the new log.",
        "We offer a seamless experience.",
        "The synergy is real.",
        "The widget ships today.",
        "We sell tools, widgets and guides.",
      ],
      r,
    );
    expect(report.sentences).toEqual([
      "Teams used the new log.",
      "We offer an experience.",
      "The cooperation is real.",
      "We sell tools and guides.",
    ]);
    expect(report.dropped).toEqual(["The widget ships today."]);
    const phrases = rules({ avoid: ["circle back", "going forward", "in order to"] });
    expect(
      followVoiceRules(["We will circle back next week.", "Going forward, we ship in order to learn."], phrases),
    ).toEqual(["We will return next week.", "We ship to learn."]);
    // A synonym that is avoided too is no way out: the word is left out where it can be.
    expect(followVoiceRules(["We leverage tools, data and people."], rules({ avoid: ["leverage", "use"] }))).toEqual(
      [],
    );
    expect(followVoiceRules(["We sell tools, leverage and guides."], rules({ avoid: ["leverage", "use"] }))).toEqual([
      "We sell tools and guides.",
    ]);
  });

  it("addresses the reader as you only where the grammar stays right", () => {
    const out = followVoiceRules(
      [
        "Users can export their plans.",
        "The tool helps customers plan.",
        "The product has 10,000 users.",
        "Readers' questions come first.",
        "It is for users who travel.",
      ],
      rules({ person: "you" }),
    );
    expect(out).toEqual([
      "You can export your plans.",
      "The tool helps you plan.",
      "The product has 10,000 users.",
      "Your questions come first.",
      "It is for users who travel.",
    ]);
    expect(followVoiceRules(["I think my team is ready, and I was right."], rules({ person: "we" }))).toEqual([
      "We think our team is ready, and we were right.",
    ]);
  });

  it("writes contractions, or writes them out, and makes exclamations full stops outside quotations", () => {
    expect(
      followVoiceRules(["It is not hard, and we do not wait.", "That is what it is."], rules({ contractions: true })),
    ).toEqual(["It isn't hard, and we don't wait.", "That's what it is."]);
    expect(
      followVoiceRules(["It's been easy, and we don't wait.", "They can't go."], rules({ contractions: false })),
    ).toEqual(["It has been easy, and we do not wait.", "They cannot go."]);
    expect(followVoiceRules(["It works!", "“Ship it!” said Dana."], rules({ exclamations: false }))).toEqual([
      "It works.",
      "“Ship it!” said Dana.",
    ]);
  });

  it("splits long sentences at natural joints and reports those it cannot split", () => {
    const report = followVoiceRulesReport(
      [
        "Teams that write decisions down ship sooner, and they spend less time in meetings every week.",
        "The tool exports every decision log to CSV, which saves managers about two hours each week.",
        "When teams write their decisions in a shared log that everyone can read at any time, they ship sooner.",
      ],
      rules({ maxSentenceWords: 11 }),
    );
    expect(report.sentences.slice(0, 4)).toEqual([
      "Teams that write decisions down ship sooner.",
      "They spend less time in meetings every week.",
      "The tool exports every decision log to CSV.",
      "This saves managers about two hours each week.",
    ]);
    expect(report.unsplit).toEqual([report.sentences[4]]);
  });
});

/** Sentences of the kinds the writer and a model write: clauses joined, lists, quotes, numbers, questions. */
const SAMPLES = [
  "Teams that utilize written decision logs ship sooner, and they spend less time in meetings.",
  "Users can leverage the seamless export to share their plans with the whole team every Friday.",
  "The synergy between sales and support is what makes this work!",
  "It is not hard to see why customers do not wait for quarterly reviews.",
  "Acme Cloud has 4,000 customers in 30 countries, which makes support a round-the-clock job.",
  "“We utilize it daily!” said Dana, who runs the support team at Acme.",
  "Do you really need another meeting?",
  "We offer tools, templates and guides for users who work remotely.",
  "I think my team is ready because we practised the launch twice.",
  "When teams write their decisions down in a shared log that anyone can read, they ship sooner.",
  "Start small; measure what changes over the first month.",
  "The new export feature saves about two hours a week for each manager.",
];

/** Rule sets over every kind of rule, chosen by a fixed sequence so the test reads the same each run. */
function ruleSets(): VoiceRules[] {
  const out: VoiceRules[] = [];
  for (let i = 0; i < 48; i++) {
    out.push(
      rules({
        maxSentenceWords: [null, 8, 11, 15][i % 4],
        avoid: [[], ["leverage", "seamless"], ["synergy", "really"], ["meetings"]][(i >> 2) % 4],
        prefer:
          i % 3 === 0
            ? [
                { from: "utilize", to: "use" },
                { from: "users", to: "customers" },
              ]
            : [],
        person: [null, "you", "we"][i % 3] as VoiceRules["person"],
        exclamations: i % 2 === 0 ? false : null,
        contractions: [null, true, false][(i >> 1) % 3] as VoiceRules["contractions"],
      }),
    );
  }
  return out;
}

const unquoted = (s: string) => s.replace(/“[^”]*”|"[^"]*"/g, "");

describe("followVoiceRules over varied sentences and rules", () => {
  it("keeps every sentence whole, with a verb and no doubled word, and follows every rule it can", () => {
    for (const r of ruleSets()) {
      const report = followVoiceRulesReport(SAMPLES, r);
      const label = JSON.stringify(r);
      expect(report.sentences.length + report.dropped.length, label).toBeGreaterThanOrEqual(SAMPLES.length);
      for (const s of report.sentences) {
        expect(s.trim(), label).not.toBe("");
        expect(isFragment(s), `${label}: ${s}`).toBe(false);
        expect(doubledWords(s), `${label}: ${s}`).toEqual([]);
        expect(s, label).not.toMatch(/\byou (?:is|was|has|does)\b/i);
        if (r.exclamations === false) expect(unquoted(s), label).not.toContain("!");
        for (const w of r.avoid) expect(unquoted(s).toLowerCase(), label).not.toMatch(new RegExp(`\\b${w}\\b`));
        for (const p of r.prefer) expect(unquoted(s).toLowerCase(), label).not.toMatch(new RegExp(`\\b${p.from}\\b`));
        if (r.contractions === false) expect(unquoted(s), label).not.toMatch(/\b\w+n['’]t\b|\b(?:it|that)['’]s\b/i);
        if (r.contractions === true) expect(unquoted(s), label).not.toMatch(/\b(?:do|does|is) not\b/i);
        if (r.maxSentenceWords !== null && sentenceWords(s) > r.maxSentenceWords)
          expect(report.unsplit, `${label}: ${s}`).toContain(s);
      }
      // The only breaches left are the sentences it reported it could not split.
      const breaches = voiceBreaches(report.sentences, r);
      expect(
        breaches.filter((b) => b.rule !== "length"),
        label,
      ).toEqual([]);
      expect(
        breaches.map((b) => b.sentence),
        label,
      ).toEqual(report.unsplit);
      // Numbers and quoted words stay exact.
      const kept = [...report.sentences, ...report.dropped].join(" ");
      for (const n of SAMPLES.join(" ").match(/\d[\d,.]*\d|\d/g) ?? []) expect(kept, label).toContain(n);
      expect(report.sentences.join(" "), label).toContain("“We utilize it daily!”");
    }
  });

  it("leaves sentences as they are when the rules ask nothing", () => {
    expect(followVoiceRules(SAMPLES, noVoiceRules())).toEqual(SAMPLES);
  });
});

const COMPANY = `Our readers are engineering managers at mid-sized SaaS companies, who care about shipping.
Acme Cloud has 4,000 customers in 30 countries. Northwind resells Acme Cloud in Europe.
The product (launched in 2019) syncs decision logs between teams, which saves managers about two hours every single week.
Please keep this in mind.`;

describe("contextNotes", () => {
  it("reads the audience, the names and the facts of context memories", () => {
    const notes = contextNotes([{ kind: "context", title: "Company facts", content: COMPANY }]);
    expect(notes.audience).toBe("engineering managers at mid-sized SaaS companies");
    expect(notes.names).toEqual(expect.arrayContaining(["Acme Cloud", "Northwind", "Europe"]));
    expect(notes.names).not.toContain("Please");
    expect(notes.facts).toEqual([
      "In 30 countries, Acme Cloud has 4,000 customers.",
      "Northwind resells Acme Cloud in Europe.",
      "The product syncs decision logs between teams.",
    ]);
  });

  it("names a long audience by its head, so that naming it pastes no run of 8 of the memory's words", () => {
    const content = "Our readers are heads of engineering and operations at companies of 50 to 500 people in Europe.";
    expect(contextNotes([{ kind: "context", title: "Readers", content }]).audience).toBe(
      "heads of engineering and operations",
    );
  });

  it("restates facts so that no run of 8 of the memory's words is pasted, quoting what it cannot restate", () => {
    const memories = [
      COMPANY,
      "Acme was founded in 2012 in Berlin and now employs 300 people across four offices on two continents.",
      "Northwind Traders, a partner since 2020, distributes the Acme Cloud desktop app to retailers in Canada and Mexico.",
      "The team ships a release every second Tuesday, and support answers within four hours on weekdays.",
    ];
    for (const content of memories) {
      const notes = contextNotes([{ kind: "context", title: "Notes", content }]);
      for (const fact of notes.facts) expect(pastedRuns(content, fact), fact).toEqual([]);
      for (const q of notes.quotedFacts) expect(q.source).toBe("Notes");
    }
    expect(contextNotes([{ kind: "voice", content: COMPANY }])).toEqual({
      audience: null,
      names: [],
      facts: [],
      quotedFacts: [],
    });
  });
});

describe("the checks of a text against its memories", () => {
  it("names each voice rule a text breaks, quotations aside", () => {
    const r = rules({ maxSentenceWords: 6, avoid: ["synergy"], prefer: [{ from: "utilize", to: "use" }] });
    const breaches = voiceBreaches(
      ["We utilize synergy daily!", "“Synergy!” she said.", "This sentence runs on for well over six words."],
      { ...r, exclamations: false, contractions: false },
    );
    expect(breaches.map((b) => [b.rule, b.detail])).toEqual([
      ["avoid", "synergy"],
      ["prefer", "utilize"],
      ["exclamations", "!"],
      ["length", "9 words"],
    ]);
    expect(voiceBreaches(["It's fine."], rules({ contractions: false }))[0]?.rule).toBe("contractions");
    expect(voiceBreaches(["It is not fine."], rules({ contractions: true }))[0]?.rule).toBe("contractions");
  });

  it("finds a context memory's words pasted outside quotations only", () => {
    const memory = "Acme Cloud has 4,000 customers in 30 countries across Europe and Asia.";
    expect(
      pastedOutsideQuotes(memory, "Today Acme Cloud has 4,000 customers in 30 countries across Europe."),
    ).not.toEqual([]);
    expect(
      pastedOutsideQuotes(memory, "As the company puts it, “Acme Cloud has 4,000 customers in 30 countries.”"),
    ).toEqual([]);
  });
});
