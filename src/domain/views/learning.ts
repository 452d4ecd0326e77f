/** The views of the learning records: a learning job and a voice profile, as the JSON of an answer shows them. */
import type { LearningJobRow } from "../../db/learning.js";
import { parseTraits } from "../generation/voice.js";
import { parseRemovals } from "../learning/removals.js";

/** A learning job as the API shows it: its result parsed, and a retry time only while it is failed and waiting. */
export function learningJobView(j: LearningJobRow) {
  return {
    id: j.id,
    content_id: j.content_id,
    workspace_id: j.workspace_id,
    status: j.status,
    result: j.result ? JSON.parse(j.result) : null,
    error: j.error,
    attempts: j.attempts,
    next_attempt_at: j.status === "failed" ? j.next_attempt_at : null,
    created_at: j.created_at,
    finished_at: j.finished_at,
  };
}

/** A voice profile as the API shows it: each trait with its evidence, and what a person removed. */
export function voiceProfileView(p: {
  id: string;
  workspace_id: string;
  traits: string;
  sample_count: number;
  removed?: string;
  updated_at: string;
}) {
  return {
    id: p.id,
    workspace_id: p.workspace_id,
    traits: parseTraits(p.traits),
    removed: parseRemovals(p.removed),
    sample_count: p.sample_count,
    updated_at: p.updated_at,
  };
}
