/** Requests and records the scoring tests share: a scoring request and a stored voice profile. */
import { iso } from "../../src/domain/clock.js";
import { emptyTraits } from "../../src/domain/generation/voice.js";
import type { Harness } from "./harness.js";

/** Sends POST /scoring with `body` under `key`; the answer as it came. */
export const score = (h: Harness, key: string, body: unknown) => h.send("POST", "/api/v1/scoring", { auth: key, body });

/** Stores a voice profile of a workspace, as learning analysis would leave it. */
export function profile(h: Harness, accountId: number, workspaceId: string, id: string) {
  return h.services.store.learning.saveProfile({
    id,
    accountId,
    workspaceId,
    traits: {
      ...emptyTraits(),
      avoided_phrases: [{ phrase: "in today's fast-paced world", count: 3 }],
      preferred_phrases: [{ phrase: "in short", count: 2 }],
      substitutions: [{ from: "utilize", to: "use", count: 2 }],
      target_sentence_words: 9,
    },
    sampleCount: 3,
    now: iso(h.clock.now()),
  });
}
