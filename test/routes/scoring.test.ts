import { describe, expect, it } from "vitest";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";
import { profile, score } from "../helpers/scoring.js";

const TEXT =
  "# Weekly planning\n\nRemote teams that write a weekly plan ship more often. The plan takes ten minutes. " +
  "Everyone reads it before Monday.\n\n- Keep it short\n- Link the details";

describe("POST /api/v1/scoring", () => {
  it("scores a text: score, weighted components, readability, stats and keywords", async () => {
    const h = makeHarness();
    const res = await score(h, h.key(), { text: TEXT, keywords: ["weekly plan", "budget"] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get("x-api-stability")).toBe("beta");
    expect(Object.keys(res.body).sort()).toEqual(
      ["components", "keywords", "prose", "readability", "score", "stats", "voice", "voice_match"].sort(),
    );
    expect(Number.isInteger(res.body.score)).toBe(true);
    expect(res.body.score).toBeGreaterThan(0);
    expect(res.body.score).toBeLessThanOrEqual(100);
    expect(Object.keys(res.body.components).sort()).toEqual(["keywords", "prose", "readability", "structure"]);
    const weights = Object.values(res.body.components as Record<string, { weight: number }>).map((c) => c.weight);
    expect(weights.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3);
    expect(Object.keys(res.body.readability).sort()).toEqual(["flesch_kincaid_grade", "flesch_reading_ease"]);
    expect(res.body.stats).toMatchObject({ headings: 1, paragraphs: 1, lists: 1, list_items: 2, sentences: 6 });
    expect(res.body.keywords.requested).toEqual([
      { keyword: "weekly plan", found: true, count: 1, density: expect.any(Number) },
      { keyword: "budget", found: false, count: 0, density: 0 },
    ]);
    expect(res.body.voice_match).toBeNull();
    // Nothing about scoring is stored or workspace-bound: the same text scores the same.
    expect((await score(h, h.key(), { text: TEXT, keywords: ["weekly plan", "budget"] })).body).toEqual(res.body);
  });

  it("reports prose findings, and counts a restated direction only when one is sent", async () => {
    const h = makeHarness();
    const key = h.key();
    const direction = "Why remote teams should write a weekly plan";
    const text =
      "# Why remote teams should write a weekly plan\n\nIn today's fast-paced world, remote teams should write a " +
      "weekly plan. Plans take ten minutes on a Monday morning. Everyone reads them before the first call of the " +
      "week, and questions go in the comments. Managers see blockers early. Nobody waits for a meeting to learn " +
      "what changed, and the team in Singapore reads the plan before Leeds wakes up. Last quarter, missed " +
      "handovers fell from nine to two.\n\nRemote teams should write a weekly plan. Short plans work best: " +
      "five lines, one owner each. Remote teams should write a weekly plan.";
    const plain = await score(h, key, { text });
    const directed = await score(h, key, { text, direction });
    for (const r of [plain, directed]) expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(plain.body.prose.direction_repeats).toBeNull();
    expect(directed.body.prose.direction_repeats).toBe(4);
    expect(directed.body.prose.filler).toEqual([{ phrase: "in today's fast-paced world", count: 1 }]);
    expect(directed.body.prose.repeated_phrases[0]).toEqual({
      phrase: "remote teams should write a weekly plan",
      count: 3,
    });
    expect(directed.body.components.prose.score).toBeLessThan(plain.body.components.prose.score);
    expect(directed.body.score).toBeLessThan(plain.body.score);
    expectErrorBody(await score(h, key, { text, direction: "x".repeat(2_001) }), 400, "validation_failed");
  });

  it("scores a content's current text like the same text sent directly", async () => {
    const h = makeHarness();
    const key = h.key();
    const content = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: "T", content: TEXT } });
    const byId = await score(h, key, { content_id: content.body.content_id });
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual((await score(h, key, { text: TEXT })).body);
  });

  it("takes exactly one of text or content_id, and validates the rest", async () => {
    const h = makeHarness();
    const key = h.key();
    for (const body of [
      {},
      { text: "x", content_id: 1 },
      { text: "" },
      { text: "ok", keywords: "nope" },
      { text: "ok", keywords: Array.from({ length: 51 }, (_, i) => `k${i}`) },
      { text: "ok", voice_profile_id: 5 },
    ])
      expectErrorBody(await score(h, key, body), 400, "validation_failed");
    expectErrorBody(await score(h, key, { content_id: 999_999 }), 404, "content_not_found");
  });

  it("matches a voice profile: avoided phrases lower voice_match, preferred ones raise it", async () => {
    const h = makeHarness();
    const key = h.key();
    profile(h, h.a.id, h.a.ws1, "vp_ownprofile1");
    const base = "Teams plan their work in writing each week. They ship more features this way.";
    const neutral = await score(h, key, { text: base, voice_profile_id: "vp_ownprofile1" });
    const avoided = await score(h, key, {
      text: `In today's fast-paced world, teams utilize written plans. ${base}`,
      voice_profile_id: "vp_ownprofile1",
    });
    const preferred = await score(h, key, {
      text: `In short, teams use written plans every week. ${base}`,
      voice_profile_id: "vp_ownprofile1",
    });
    for (const r of [neutral, avoided, preferred]) {
      expect(r.status).toBe(200);
      expect(r.body.components.voice).toEqual({ score: expect.any(Number), weight: 0.2 });
      expect(r.body.voice_match).toBeGreaterThanOrEqual(0);
      expect(r.body.voice_match).toBeLessThanOrEqual(1);
    }
    expect(avoided.body.voice_match).toBeLessThan(neutral.body.voice_match);
    expect(preferred.body.voice_match).toBeGreaterThan(neutral.body.voice_match);
    expect(avoided.body.voice.avoided_phrases).toEqual([{ phrase: "in today's fast-paced world", count: 1 }]);
  });

  it("uses a voice profile of another workspace of the account, even with a bound key (account-level)", async () => {
    const h = makeHarness();
    profile(h, h.a.id, h.a.ws2, "vp_otherws1");
    const bound = h.key({ workspaceId: h.a.ws1 });
    const res = await score(h, bound, { text: "Short text here.", voice_profile_id: "vp_otherws1" });
    expect(res.status).toBe(200);
    expect(res.body.voice_match).not.toBeNull();
  });
});
