/**
 * Correcting and resetting a voice profile are bound writes: a key bound to another workspace may read the profile
 * (account-level) but not change it (403 workspace_mismatch, as every bound write of a record elsewhere), a read-only
 * key may not write (403 insufficient_scope), and a workspace named that is not the profile's is 404.
 */
import { describe, expect, it } from "vitest";
import { emptyTraits } from "../../src/domain/generation/voice.js";
import { makeHarness } from "../helpers/harness.js";

function withProfile() {
  const h = makeHarness();
  const traits = { ...emptyTraits(), substitutions: [{ from: "technicians", to: "installers", count: 2 }] };
  const now = new Date(h.clock.now()).toISOString();
  h.services.store.learning.saveProfile({
    id: "vp_ws1",
    accountId: h.a.id,
    workspaceId: h.a.ws1,
    traits,
    sampleCount: 2,
    now,
  });
  return h;
}

const WRITES: [string, string, unknown][] = [
  [
    "PATCH",
    "/api/v1/voice-profiles/vp_ws1",
    { remove: { substitutions: [{ from: "technicians", to: "installers" }] } },
  ],
  ["POST", "/api/v1/voice-profiles/vp_ws1/reset", undefined],
];

describe("voice profile writes and the workspace binding", () => {
  it.each(WRITES)(
    "%s %s: a key bound to another workspace gets 403 and changes nothing",
    async (method, path, body) => {
      const h = withProfile();
      const bound = h.key({ workspaceId: h.a.ws2 });
      const res = await h.send(method, path, { auth: bound, body });
      expect(res.status).toBe(403);
      expect(res.body.details.error_code).toBe("workspace_mismatch");
      expect(h.services.store.learning.profile("vp_ws1")!.sample_count).toBe(2);
      // Reads stay account-level.
      expect((await h.send("GET", "/api/v1/voice-profiles/vp_ws1", { auth: bound })).status).toBe(200);
    },
  );

  it.each(WRITES)("%s %s: a key bound to the profile's workspace may", async (method, path, body) => {
    const h = withProfile();
    const res = await h.send(method, path, { auth: h.key({ workspaceId: h.a.ws1 }), body });
    expect(res.status).toBe(200);
  });

  it.each(WRITES)("%s %s: a read-only key gets 403 insufficient_scope", async (method, path, body) => {
    const h = withProfile();
    const res = await h.send(method, path, { auth: h.key({ scopes: ["read"] }), body });
    expect(res.status).toBe(403);
    expect(res.body.details.error_code).toBe("insufficient_scope");
  });

  it.each(WRITES)("%s %s: naming another workspace is 404", async (method, path, body) => {
    const h = withProfile();
    const res = await h.send(method, `${path}?workspace_id=${h.a.ws2}`, { auth: h.key(), body });
    expect(res.status).toBe(404);
    expect(res.body.details.error_code).toBe("voice_profile_not_found");
  });

  it("a web session may correct a profile", async () => {
    const h = withProfile();
    const session = await h.login("admin@a.test");
    const res = await h.send("PATCH", "/api/v1/voice-profiles/vp_ws1", {
      auth: session,
      body: { set: { target_sentence_words: 12 } },
    });
    expect(res.status).toBe(200);
    expect(res.body.traits.target_sentence_words).toBe(12);
  });
});
