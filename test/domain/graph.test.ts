import { describe, expect, it } from "vitest";
import { iso } from "../../src/domain/clock.js";
import { extractGraph, GraphService, singular } from "../../src/domain/graph.js";
import { inlinePool, type WorkerPool } from "../../src/workers/pool.js";
import { makeHarness } from "../helpers/harness.js";

const ACME =
  "Acme Corp opened an office in New York. Acme Corp hired Jane Doe to run it. " +
  "Jane Doe previously worked at the Bank of America in Boston.";

const plain = (text: string) => extractGraph({ text, format: "plain" });
const ids = (text: string) => plain(text).entities.map((e) => e.id);

describe("extractGraph", () => {
  it("finds proper-noun phrases and links those that share a sentence", () => {
    const g = plain(ACME);
    expect(g.entities).toEqual(
      expect.arrayContaining([
        { id: "acme-corp", label: "Acme Corp", type: "proper_noun", mentions: 2 },
        { id: "new-york", label: "New York", type: "proper_noun", mentions: 1 },
        { id: "jane-doe", label: "Jane Doe", type: "proper_noun", mentions: 2 },
        { id: "bank-of-america", label: "Bank of America", type: "proper_noun", mentions: 1 },
        { id: "boston", label: "Boston", type: "proper_noun", mentions: 1 },
      ]),
    );
    expect(g.entities).toHaveLength(5);
    expect(g.pairs).toEqual(
      expect.arrayContaining([
        { source: "acme-corp", target: "new-york", weight: 1 },
        { source: "acme-corp", target: "jane-doe", weight: 1 },
        { source: "bank-of-america", target: "jane-doe", weight: 1 },
        { source: "boston", target: "jane-doe", weight: 1 },
      ]),
    );
    expect(g.pairs.filter((p) => p.source === "new-york" || p.target === "new-york")).toEqual([
      { source: "acme-corp", target: "new-york", weight: 1 },
    ]);
    // Weight counts the sentences two entities share.
    const twice = plain("Acme Corp is in New York. Acme Corp loves New York. Jane Doe is elsewhere.");
    expect(twice.pairs).toEqual([{ source: "acme-corp", target: "new-york", weight: 2 }]);
  });

  it("does not take capitals that only open a sentence, a title or a heading for names", () => {
    // "Managers" and "Remote" only open sentences; "Acme" is also capitalised mid-sentence, so it is a name.
    expect(ids("Managers said the plan works. Remote teams agree. Acme grows. We visited Acme last week.")).toEqual([
      "acme",
    ]);
    expect(ids("Why Written Planning Reviews Matter Now\n\nThe team agreed.")).toEqual([]);
    // Opening several sentences and never written in lower case: a name.
    expect(ids("Initech moved. Initech hired staff. Remote work grew.")).toEqual(["initech"]);
    // Leading function words and possessives are not part of a name.
    expect(ids("The Acme Corp's office is in Paris, France.")).toEqual(["acme-corp", "france", "paris"].sort());
  });

  it("finds frequent two- and three-word key phrases outside names", () => {
    const text =
      "Remote teams hold a weekly planning review. The weekly planning review takes an hour. " +
      "A good weekly planning review needs an agenda. Shared agendas help remote teams.";
    const g = plain(text);
    const phrases = g.entities.filter((e) => e.type === "key_phrase");
    expect(phrases).toEqual(
      expect.arrayContaining([
        { id: "weekly-planning-review", label: "weekly planning review", type: "key_phrase", mentions: 3 },
        { id: "remote-team", label: "remote teams", type: "key_phrase", mentions: 2 },
      ]),
    );
    // Sub-phrases that only occur inside a longer one are not repeated.
    expect(phrases.map((p) => p.id)).not.toContain("planning-review");
    expect(phrases.map((p) => p.id)).not.toContain("weekly-planning");
    // Phrases seen once are not key phrases.
    expect(phrases.map((p) => p.id)).not.toContain("shared-agenda");
  });

  it("reads a content's Markdown as text", () => {
    const g = extractGraph({
      text: "# Update\n\n**Acme Corp** opened in [New York](https://ny.example).",
      format: "markdown",
    });
    expect(g.pairs).toEqual([{ source: "acme-corp", target: "new-york", weight: 1 }]);
  });

  it("folds plurals", () => {
    expect(["reviews", "companies", "boxes", "business", "status", "plan"].map(singular)).toEqual([
      "review",
      "company",
      "box",
      "business",
      "status",
      "plan",
    ]);
  });
});

describe("GraphService", () => {
  /** A pool that counts extractions and can hold them until released. */
  function gatedPool() {
    const inner = inlinePool();
    let release: () => void = () => {};
    let gate: Promise<void> | null = null;
    const calls: string[] = [];
    const pool: WorkerPool = {
      async run(name, input) {
        if (name === "extractGraph") {
          calls.push((input as { text: string }).text.slice(0, 12));
          if (gate) await gate;
        }
        return inner.run(name, input);
      },
      close: () => inner.close(),
    };
    return {
      pool,
      calls,
      hold() {
        gate = new Promise((r) => {
          release = r;
        });
      },
      release: () => {
        gate = null;
        release();
      },
    };
  }

  it("catches up in the background, coalesces changes, and drops what deleted sources yielded", async () => {
    const h = makeHarness();
    const gated = gatedPool();
    const graph = new GraphService(h.services.store, gated.pool, h.clock, h.logger);
    const store = h.services.store;
    const addReference = (content: string) =>
      store.references.create({
        accountId: h.a.id,
        workspaceId: h.a.ws1,
        title: "t",
        content,
        sourceType: "text",
        wordCount: 10,
        passages: [],
        now: iso(h.clock.now()),
      });

    gated.hold();
    const first = addReference(ACME);
    graph.touch(h.a.ws1);
    // Let the first catch-up reach the pool, then change the workspace three more times while it waits.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(gated.calls).toHaveLength(1);
    addReference("Globex Corporation moved to Springfield. Globex Corporation hired Homer Simpson.");
    graph.touch(h.a.ws1);
    graph.touch(h.a.ws1);
    graph.touch(h.a.ws1);
    expect(store.graph.nodes(h.a.ws1, null, 100)).toEqual([]);
    gated.release();
    await graph.idle();
    // One extraction per source: the three touches made one more catch-up, not three.
    expect(gated.calls).toHaveLength(2);
    const labels = store.graph.nodes(h.a.ws1, null, 100).map((n) => n.label);
    expect(labels).toEqual(expect.arrayContaining(["Acme Corp", "New York", "Globex Corporation", "Springfield"]));
    expect(store.graph.updatedAt(h.a.ws1)).toBe(iso(h.clock.now()));
    // Another workspace's graph is untouched.
    expect(store.graph.nodes(h.a.ws2, null, 100)).toEqual([]);

    // Nothing pending: a new touch extracts nothing again.
    expect(graph.behind(h.a.ws1)).toBe(0);
    graph.touch(h.a.ws1);
    await graph.idle();
    expect(gated.calls).toHaveLength(2);

    store.references.remove(first.id);
    graph.touch(h.a.ws1);
    await graph.idle();
    const after = store.graph.nodes(h.a.ws1, null, 100).map((n) => n.label);
    expect(after).not.toContain("Acme Corp");
    expect(after).toContain("Globex Corporation");
  });

  it("stops taking work after stop()", async () => {
    const h = makeHarness();
    const gated = gatedPool();
    const graph = new GraphService(h.services.store, gated.pool, h.clock, h.logger);
    await graph.stop();
    graph.touch(h.a.ws1);
    await graph.idle();
    expect(gated.calls).toHaveLength(0);
  });
});
