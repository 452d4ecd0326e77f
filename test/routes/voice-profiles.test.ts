/**
 * A person sees and corrects what learning took from the edits (issue 29, point 4): the profile shows each trait with
 * its evidence; PATCH removes or edits traits and sets targets, reset empties the profile; a removal takes effect on
 * the next generation and is not learned again from the same old edit, though a new edit may teach it again.
 */
import { describe, expect, it } from "vitest";
import { type Harness, makeHarness } from "../helpers/harness.js";

const DIRECTION = "Why technicians should photograph every rooftop installation before they leave the site";

/** Generates in workspace 1 and finalizes with every "technicians" made "installers"; the content's id. */
async function learnInstallers(h: Harness, key: string): Promise<number> {
  const gen = await h.send("POST", "/api/v1/generate", {
    auth: key,
    body: { template_id: 1, user_direction: DIRECTION, seed: 7 },
  });
  expect(gen.status).toBe(201);
  const text = gen.body.content as string;
  expect(text).toMatch(/\btechnicians\b/i);
  const edited = text.replace(/\b(t|T)echnicians\b/g, (_, t: string) => (t === "T" ? "Installers" : "installers"));
  const fin = await h.send("POST", "/api/v1/finalizeContent", {
    auth: key,
    body: { content_id: gen.body.content_id, finalized_content: edited, edit_seconds: 60 },
  });
  expect(fin.status).toBe(200);
  await h.services.learning.idle();
  return gen.body.content_id;
}

async function profileOf(h: Harness, key: string) {
  const list = await h.send("GET", "/api/v1/voice-profiles", { auth: key });
  expect(list.status).toBe(200);
  return list.body.data[0];
}

async function generated(h: Harness, key: string): Promise<string> {
  const gen = await h.send("POST", "/api/v1/generate", {
    auth: key,
    body: { template_id: 1, user_direction: DIRECTION, seed: 7 },
  });
  expect(gen.status).toBe(201);
  return gen.body.content;
}

describe("correcting a voice profile", () => {
  it("shows each trait with its evidence, and a removal takes effect on the next generation", async () => {
    const h = makeHarness();
    const key = h.key();
    const contentId = await learnInstallers(h, key);
    const profile = await profileOf(h, key);
    expect(profile.traits.substitutions).toContainEqual(
      expect.objectContaining({ from: "technicians", to: "installers", samples: 1, content_ids: [contentId] }),
    );
    expect(await generated(h, key)).not.toMatch(/\btechnicians\b/i);

    const patched = await h.send("PATCH", `/api/v1/voice-profiles/${profile.id}`, {
      auth: key,
      body: { remove: { substitutions: [{ from: "technicians", to: "installers" }] } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.traits.substitutions.map((s: { from: string }) => s.from)).not.toContain("technicians");
    expect(patched.body.removed.substitutions).toEqual([
      { from: "technicians", to: "installers", content_ids: [contentId] },
    ]);
    expect(await generated(h, key)).toMatch(/\btechnicians\b/i);
  });

  it("does not learn a removed trait again from the same old edit, but a new edit teaches it again", async () => {
    const h = makeHarness();
    const key = h.key();
    const contentId = await learnInstallers(h, key);
    const profile = await profileOf(h, key);
    await h.send("PATCH", `/api/v1/voice-profiles/${profile.id}`, {
      auth: key,
      body: { remove: { substitutions: [{ from: "technicians", to: "installers" }] } },
    });
    // The learning job of that content run again, on the same two versions.
    const versions = h.services.store.contents.byId(contentId)!.version_count;
    h.services.store.learning.enqueue({
      id: "lj_again",
      accountId: h.a.id,
      workspaceId: h.a.ws1,
      contentId,
      input: { generated_version: versions - 1, finalized_version: versions, edit_seconds: 60 },
      now: new Date(h.clock.now()).toISOString(),
    });
    await h.services.learning.idle();
    expect(h.services.store.learning.job("lj_again")!.status).toBe("succeeded");
    let now = await profileOf(h, key);
    expect(now.sample_count).toBe(2);
    expect(now.traits.substitutions.map((s: { from: string }) => s.from)).not.toContain("technicians");
    expect(now.traits.contested_substitutions).toEqual([]);

    const newer = await learnInstallers(h, key);
    now = await profileOf(h, key);
    expect(now.traits.substitutions).toContainEqual(
      expect.objectContaining({ from: "technicians", to: "installers", samples: 1, content_ids: [newer] }),
    );
  });

  it("edits a substitution's replacement, keeping its evidence, and sets the targets", async () => {
    const h = makeHarness();
    const key = h.key();
    const contentId = await learnInstallers(h, key);
    const profile = await profileOf(h, key);
    const res = await h.send("PATCH", `/api/v1/voice-profiles/${profile.id}`, {
      auth: key,
      body: {
        edit: { substitutions: [{ from: "technicians", to: "fitters" }] },
        set: { target_sentence_words: 11, readability_target: null },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.traits.substitutions).toContainEqual(
      expect.objectContaining({ from: "technicians", to: "fitters", content_ids: [contentId] }),
    );
    expect(res.body.traits).toMatchObject({ target_sentence_words: 11, readability_target: null });
    expect(res.body.removed.substitutions).toEqual([
      { from: "technicians", to: "installers", content_ids: [contentId] },
    ]);
    const text = await generated(h, key);
    expect(text).toMatch(/\bfitters\b/i);
    expect(text).not.toMatch(/\b(technicians|installers)\b/i);
  });

  it("resets a profile: the next generation writes as with none, and the profile keeps its id", async () => {
    const h = makeHarness();
    const key = h.key();
    await learnInstallers(h, key);
    const profile = await profileOf(h, key);
    const res = await h.send("POST", `/api/v1/voice-profiles/${profile.id}/reset`, { auth: key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: profile.id, sample_count: 0 });
    expect(res.body.traits).toMatchObject({ substitutions: [], avoided_phrases: [], target_sentence_words: null });
    expect(await generated(h, key)).toMatch(/\btechnicians\b/i);
    const read = await h.send("GET", `/api/v1/voice-profiles/${profile.id}`, { auth: key });
    expect(read.body).toEqual(res.body);
  });

  it("answers 404 for a profile that is not the account's and 400 for a correction it cannot make", async () => {
    const h = makeHarness();
    const key = h.key();
    await learnInstallers(h, key);
    const profile = await profileOf(h, key);
    const missing = await h.send("PATCH", "/api/v1/voice-profiles/vp_nope", { auth: key, body: {} });
    expect(missing.status).toBe(404);
    expect(missing.body.details).toMatchObject({ error_code: "voice_profile_not_found", voice_profile_id: "vp_nope" });
    const other = h.key({ account: h.b.id });
    const theirs = await h.send("POST", `/api/v1/voice-profiles/${profile.id}/reset`, { auth: other });
    expect(theirs.status).toBe(404);
    const unknown = await h.send("PATCH", `/api/v1/voice-profiles/${profile.id}`, {
      auth: key,
      body: { edit: { substitutions: [{ from: "synergy", to: "work" }] } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details.issues).toEqual([
      { path: "body.edit.substitutions[0].from", message: 'the profile has no substitution of "synergy"' },
    ]);
    const bad = await h.send("PATCH", `/api/v1/voice-profiles/${profile.id}`, {
      auth: key,
      body: { set: { target_sentence_words: 500 } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details.error_code).toBe("validation_failed");
    // Removing what the profile does not hold changes nothing.
    const none = await h.send("PATCH", `/api/v1/voice-profiles/${profile.id}`, {
      auth: key,
      body: { remove: { avoided_phrases: ["Never learned"] } },
    });
    expect(none.status).toBe(200);
    expect(none.body.traits).toEqual(profile.traits);
    // Nor is it recorded: 50 made-up removals would otherwise push the real ones out of the bounded record.
    expect(none.body.removed).toEqual(profile.removed);
  });
});
