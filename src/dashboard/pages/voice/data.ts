/** The voice profile of the current workspace and its corrections (src/routes/learning.ts). */
import { api, ok } from "../../api/client.js";
import type { components, operations } from "../../api/schema.js";

export type Profile = components["schemas"]["VoiceProfile"];
export type Traits = Profile["traits"];
export type Substitution = Traits["substitutions"][number];
export type Phrase = Traits["avoided_phrases"][number];
export type Correction = operations["updateVoiceProfile"]["requestBody"]["content"]["application/json"];

/** The workspace's profile, or null while it has learned nothing (profiles are listed for the whole account). */
export async function profileOf(workspaceId: string | null): Promise<Profile | null> {
  let cursor: string | undefined;
  do {
    const answer = await ok(api.GET("/api/v1/voice-profiles", { params: { query: { limit: 100, cursor } } }));
    const found = answer.data.find((p) => p.workspace_id === workspaceId);
    if (found) return found;
    cursor = answer.has_more ? (answer.next_cursor ?? undefined) : undefined;
  } while (cursor);
  return null;
}

export function correctProfile(id: string, correction: Correction): Promise<Profile> {
  return ok(api.PATCH("/api/v1/voice-profiles/{id}", { params: { path: { id } }, body: correction }));
}

export function resetProfile(id: string): Promise<Profile> {
  return ok(api.POST("/api/v1/voice-profiles/{id}/reset", { params: { path: { id } } }));
}

/** Whether the profile holds anything generation follows. */
export function isEmpty(t: Traits): boolean {
  return (
    t.substitutions.length +
      t.avoided_phrases.length +
      t.preferred_phrases.length +
      t.contested_substitutions.length ===
      0 &&
    t.target_sentence_words === null &&
    t.readability_target === null
  );
}
