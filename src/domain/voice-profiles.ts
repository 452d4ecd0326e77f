/**
 * Voice profiles are account-level (spec §5): an account reads its own, in any workspace, whatever a key's binding;
 * another account's is answered as one that does not exist.
 */
import type { VoiceProfileRow } from "../db/learning.js";
import type { Store } from "../db/store.js";
import { ApiError } from "./errors.js";

/** A voice profile of the account by id: 404 voice_profile_not_found otherwise. */
export function findVoiceProfile(store: Pick<Store, "learning">, accountId: number, id: string): VoiceProfileRow {
  const p = store.learning.profile(id);
  if (!p || p.account_id !== accountId)
    throw new ApiError("voice_profile_not_found", `No voice profile ${id}.`, { voice_profile_id: id });
  return p;
}
