import { describe, expect, it, vi } from "vitest";
import type { GraphSource } from "../../src/db/graph.js";
import { iso } from "../../src/domain/clock.js";
import { GraphService } from "../../src/domain/graph.js";
import { dropSubsumed, extractGraph, type PhraseCount, singular } from "../../src/domain/graph-extract.js";
import { inlineWriter, type StoreWriter } from "../../src/domain/writer.js";
import { inlinePool, type WorkerPool } from "../../src/workers/pool.js";
import { type Harness, makeHarness, storeReference } from "../helpers/harness.js";

const ACME =
  "Acme Corp opened an office in New York. Acme Corp hired Jane Doe to run it. " +
  "Jane Doe previously worked at the Bank of America in Boston.";

const plain = (text: string) => extractGraph({ text, format: "plain" });
const ids = (text: string) => plain(text).entities.map((e) => e.id);

describe("dropSubsumed", () => {
  const phrase = (parts: string[], count: number, sentences: number[]): PhraseCount => ({
    key: parts.join(" "),
    parts,
    label: parts.join(" "),
    words: parts.length,
    count,
    sentences,
  });

  it("drops a phrase inside a longer one of its count, and the earlier of two windows of one run", () => {
    const run = phrase(["weekly", "written", "planning"], 2, [1, 4]);
    const later = phrase(["written", "planning", "review"], 2, [1, 4]);
    const inside = phrase(["written", "planning"], 2, [1, 4]);
    const elsewhere = phrase(["planning", "review"], 3, [1, 4, 7]);
    expect(dropSubsumed([run, later, inside, elsewhere])).toEqual([later, elsewhere]);
    // Another count or other sentences: not the same run.
    const other = phrase(["written", "planning", "review"], 2, [2, 5]);
    expect(dropSubsumed([run, other])).toEqual([run, other]);
  });

  // Found by review: phrases sharing their leading words were kept in a list copied at every insert and scanned
  // for every phrase (quadratic: 5.9 s for a 615 KB text). 200,000 of them would take hours that way.
  it("takes 200,000 phrases that share their leading words", () => {
    const phrases = Array.from({ length: 200_000 }, (_, i) => phrase(["alpha", `w${i}`], 2, [i, i + 1]));
    expect(dropSubsumed(phrases)).toHaveLength(200_000);
    // Each of these ends with the words all the others begin with, in other sentences: none is dropped.
    const before = Array.from({ length: 100_000 }, (_, i) => phrase([`x${i}`, "alpha"], 3, [i]));
    expect(dropSubsumed([...before, ...phrases])).toHaveLength(300_000);
  });
});

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
      storeReference(store, { accountId: h.a.id, workspaceId: h.a.ws1, content, now: iso(h.clock.now()) });

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

  const GLOBEX = "Globex Corporation moved to Springfield. Globex Corporation hired Homer Simpson.";
  const HOOLI = "Hooli Labs opened in Palo Alto. Hooli Labs hired Gavin Belson.";
  const UMBRELLA = "Umbrella Corp opened in Raccoon City. Umbrella Corp hired Albert Wesker.";

  /** Sources stored without the routes (so nothing is announced), the graph's node ids, and spies on its scans. */
  function workspace(h: Harness) {
    const store = h.services.store;
    const now = () => iso(h.clock.now());
    return {
      reference(content: string): GraphSource {
        const r = storeReference(store, { accountId: h.a.id, workspaceId: h.a.ws1, content, now: now() });
        return { kind: "reference", id: r.id, version: 0 };
      },
      /** A finalized content at version 1. */
      finalized(text: string): GraphSource {
        const row = store.contents.create({
          accountId: h.a.id,
          workspaceId: h.a.ws1,
          templateId: null,
          title: "t",
          content: text,
          status: "finalized",
          now: now(),
        });
        store.contents.save({ ...row, finalized_content: text, version_count: 1 }, now());
        return { kind: "content", id: row.id, version: 1 };
      },
      /** Regenerates a content: a new version, out of the graph's statuses. */
      regenerate(source: GraphSource): GraphSource {
        const row = store.contents.byId(source.id)!;
        store.contents.save({ ...row, status: "generated", version_count: row.version_count + 1 }, now());
        return { ...source, version: row.version_count + 1 };
      },
      nodeIds: () => store.graph.nodes(h.a.ws1, null, 100).map((n) => n.id),
      scans: {
        pending: vi.spyOn(store.graph, "pendingSources"),
        stale: vi.spyOn(store.graph, "removeStale"),
      },
    };
  }

  it("takes in only the sources the changes name once it has scanned the workspace", async () => {
    const h = makeHarness();
    const gated = gatedPool();
    const graph = new GraphService(h.services.store, gated.pool, h.clock, h.logger);
    const ws = workspace(h);

    graph.touch(h.a.ws1, ws.reference(ACME));
    await graph.idle();
    // The first catch-up since the service started scans the workspace, named change or not.
    expect(ws.scans.pending).toHaveBeenCalledTimes(1);
    expect(ws.scans.stale).toHaveBeenCalledTimes(1);
    expect(ws.nodeIds()).toContain("acme-corp");

    // A named change takes in that source only: one stored unannounced is not looked for.
    ws.reference(GLOBEX);
    graph.touch(h.a.ws1, ws.reference(HOOLI));
    await graph.idle();
    expect(gated.calls).toEqual([ACME.slice(0, 12), HOOLI.slice(0, 12)]);
    expect(ws.nodeIds()).toContain("hooli-labs");
    expect(ws.nodeIds()).not.toContain("globex-corporation");

    // A finalized content at its version; the same change twice is taken in once.
    const umbrella = ws.finalized(UMBRELLA);
    graph.touch(h.a.ws1, umbrella);
    graph.touch(h.a.ws1, umbrella);
    await graph.idle();
    graph.touch(h.a.ws1, umbrella);
    await graph.idle();
    expect(gated.calls).toHaveLength(3);
    expect(ws.nodeIds()).toContain("umbrella-corp");

    // A stale change (an older version) extracts nothing and keeps what the current version yielded.
    graph.touch(h.a.ws1, { ...umbrella, version: 0 });
    await graph.idle();
    expect(gated.calls).toHaveLength(3);
    expect(ws.nodeIds()).toContain("umbrella-corp");

    // A content that left the graph's statuses goes on its named change.
    graph.touch(h.a.ws1, ws.regenerate(umbrella));
    await graph.idle();
    expect(ws.nodeIds()).not.toContain("umbrella-corp");
    expect(h.services.store.graph.staleCount(h.a.ws1)).toBe(0);

    // None of that scanned the workspace again.
    expect(ws.scans.pending).toHaveBeenCalledTimes(1);
    expect(ws.scans.stale).toHaveBeenCalledTimes(1);

    // A change naming no source scans it: the unannounced reference is taken in.
    graph.touch(h.a.ws1);
    await graph.idle();
    expect(ws.scans.pending).toHaveBeenCalledTimes(2);
    expect(ws.scans.stale).toHaveBeenCalledTimes(2);
    expect(ws.nodeIds()).toContain("globex-corporation");
    expect(gated.calls).toHaveLength(4);
  });

  it("scans the workspace on its first catch-up after a start, taking in what changed while it was stopped", async () => {
    const h = makeHarness();
    const gated = gatedPool();
    const store = h.services.store;
    const first = new GraphService(store, gated.pool, h.clock, h.logger);
    const ws = workspace(h);
    first.touch(h.a.ws1, ws.reference(ACME));
    const umbrella = ws.finalized(UMBRELLA);
    first.touch(h.a.ws1, umbrella);
    await first.idle();
    expect(ws.nodeIds()).toEqual(expect.arrayContaining(["acme-corp", "umbrella-corp"]));
    await first.stop();

    // While stopped: a reference added (its change is dropped), and the content regenerated.
    first.touch(h.a.ws1, ws.reference(GLOBEX));
    ws.regenerate(umbrella);
    await first.idle();
    expect(ws.nodeIds()).not.toContain("globex-corporation");

    const second = new GraphService(store, gated.pool, h.clock, h.logger);
    second.touch(h.a.ws1, ws.reference(HOOLI));
    await second.idle();
    const ids = ws.nodeIds();
    expect(ids).toEqual(expect.arrayContaining(["acme-corp", "globex-corporation", "hooli-labs"]));
    expect(ids).not.toContain("umbrella-corp");
    expect(store.graph.pendingSources(h.a.ws1)).toEqual([]);
    expect(store.graph.staleCount(h.a.ws1)).toBe(0);
  });

  it("scans the workspace again after a catch-up failed", async () => {
    const h = makeHarness();
    const inner = inlinePool();
    let failures = 1;
    const pool: WorkerPool = {
      async run(name, input) {
        if (name === "extractGraph" && (input as { text: string }).text === GLOBEX && failures-- > 0)
          throw new Error("worker died");
        return inner.run(name, input);
      },
      close: () => inner.close(),
    };
    const graph = new GraphService(h.services.store, pool, h.clock, h.logger);
    const ws = workspace(h);
    graph.touch(h.a.ws1, ws.reference(ACME));
    await graph.idle();

    graph.touch(h.a.ws1, ws.reference(GLOBEX));
    await graph.idle();
    expect(h.logger.lines).toContainEqual(expect.objectContaining({ message: "knowledge graph update failed" }));
    expect(ws.nodeIds()).not.toContain("globex-corporation");

    // The failed change is not lost: the next change, though named, scans the workspace.
    graph.touch(h.a.ws1, ws.reference(HOOLI));
    await graph.idle();
    expect(ws.scans.pending).toHaveBeenCalledTimes(2);
    expect(ws.nodeIds()).toEqual(expect.arrayContaining(["acme-corp", "globex-corporation", "hooli-labs"]));
  });

  it("drops, without logging a failure, a catch-up of a workspace deleted while it ran", async () => {
    const h = makeHarness();
    const store = h.services.store;
    const ws = h.a.ws2;
    const inline = inlineWriter(store);
    // The workspace goes between the catch-up's last look at it and its writes, as a DELETE queued on the writer
    // thread ahead of them does.
    const writer: StoreWriter = {
      run(op, input, transfer) {
        if (op === "graphMarkUpdated") h.db.prepare("DELETE FROM workspaces WHERE id = ?").run(ws);
        return inline.run(op, input, transfer);
      },
    };
    const graph = new GraphService(store, inlinePool(), h.clock, h.logger, writer);
    const r = storeReference(store, { accountId: h.a.id, workspaceId: ws, content: ACME, now: iso(h.clock.now()) });
    graph.touch(ws, { kind: "reference", id: r.id, version: 0 });
    await graph.idle();
    expect(store.workspaces.byId(ws)).toBeUndefined();
    expect(h.logger.lines.filter((l) => l.level === "error")).toEqual([]);
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
