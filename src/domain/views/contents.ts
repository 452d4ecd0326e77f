/** The views of a content record and its versions: the JSON shape of each in an answer (DESIGN §9). */
import type { ContentRow, VersionRow } from "../../db/contents.js";
import { type Finalized, finalText } from "../contents.js";
import type { GenerationOutput } from "../generation/builtin.js";
import { isOverdue } from "../planning.js";

/** The content record as the API shows it (DESIGN §9). */
export function contentView(row: ContentRow, today: string) {
  return {
    content_id: row.id,
    workspace_id: row.workspace_id,
    template_id: row.template_id,
    title: row.title,
    content: row.content,
    finalized_content: finalText(row),
    status: row.status,
    scheduled_publish_at: row.scheduled_publish_at,
    scheduled_publish_day: row.scheduled_publish_day,
    is_overdue: isOverdue(row.scheduled_publish_day, row.status, today),
    published_at: row.published_at,
    version_count: row.version_count,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A version of a content (a generation or the finalization) as the API shows it; `details` parsed from its JSON. */
export function versionView(ver: VersionRow) {
  return {
    version: ver.version,
    kind: ver.kind,
    title: ver.title,
    text: ver.text,
    model: ver.model,
    details: ver.details ? JSON.parse(ver.details) : null,
    created_at: ver.created_at,
  };
}

/**
 * What POST /generate answers: the content record with the piece's text, and the engine, sources and word count of
 * the piece.
 */
export function generationView(row: ContentRow, output: GenerationOutput, model: string, today: string) {
  return {
    ...contentView({ ...row, content: output.text }, today),
    model,
    sources: output.sources,
    word_count: output.word_count,
    warnings: output.warnings,
  };
}

/** What POST /finalizeContent answers: the finalized text as stored and the learning job it started, if any. */
export function finalizationView(done: Finalized, text: string) {
  return {
    content_id: done.contentId,
    finalized_content: text,
    status: "finalized" as const,
    updated_at: done.updatedAt,
    learning_job_id: done.jobId,
    learning_triggered: done.jobId !== null,
  };
}
