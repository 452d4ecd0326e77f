/** The voice profile of the current workspace and its corrections (src/routes/learning.ts). */
import { allPages, api, ok } from "../../api/client.js";
import type { components, operations } from "../../api/schema.js";

/** A workspace's voice profile: its learned traits, what a person removed, and the evidence. */
export type Profile = components["schemas"]["VoiceProfile"];
/** What a profile has learned: substitutions, phrases avoided and preferred, and the targets. */
export type Traits = Profile["traits"];
/** A learned substitution: a word writers replace, its replacement, and the evidence. */
export type Substitution = Traits["substitutions"][number];
/** A learned phrase (avoided or preferred) with its evidence. */
export type Phrase = Traits["avoided_phrases"][number];
/** A person's correction of a profile, as PATCH /voice-profiles/{id} takes it. */
export type Correction = operations["updateVoiceProfile"]["requestBody"]["content"]["application/json"];

/** The workspace's profile, or null while it has learned nothing (profiles are listed for the whole account). */
export async function profileOf(workspaceId: string | null): Promise<Profile | null> {
  const profiles = await allPages((cursor) =>
    ok(api.GET("/api/v1/voice-profiles", { params: { query: { limit: 100, cursor } } })),
  );
  return profiles.find((p) => p.workspace_id === workspaceId) ?? null;
}

/** Applies a correction to a profile; answers the profile as the server holds it after. */
export function correctProfile(id: string, correction: Correction): Promise<Profile> {
  return ok(api.PATCH("/api/v1/voice-profiles/{id}", { params: { path: { id } }, body: correction }));
}

/** Empties a profile of what it learned (what a person removed stays recorded); answers the emptied profile. */
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
