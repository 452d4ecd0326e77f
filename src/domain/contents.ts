/** The content lifecycle (DESIGN §7–§8): drafts, generation, finalization, planning and publication. */
import type { AccountRow } from "../db/accounts.js";
import type { ContentRow, ContentStatus } from "../db/contents.js";
import type { Store } from "../db/store.js";
import type { DbLocation } from "../db/thread-store.js";
import type { WorkspaceRow } from "../db/workspaces.js";
import { prefixedId } from "../runtime/ids.js";
import { iso } from "./clock.js";
import { ApiError, invalidStatus, workspaceMismatch, workspaceNotFound } from "./errors.js";
import type { GenerationInput, GenerationOutput, SectionSpec } from "./generation/builtin.js";
import { readPassages } from "./generation/passages.js";
import { parseTraits } from "./generation/voice.js";
import { analysesUsed, learningPreferences, quotaPeriod } from "./learning-settings.js";
import { machineTimezone, todayIn } from "./planning.js";
import { PLAN_LIMITS } from "./plans.js";
import { requireTemplate } from "./templates.js";

/**
 * The final text of a content: a finalized or published content's text is fixed and stored once, as `content`
 * (`finalized_content` NULL); rows finalized before sql/0010_text_version.sql hold it in both.
 */
export function finalText(row: ContentRow): string | null {
  return row.finalized_content ?? (row.status === "finalized" || row.status === "published" ? row.content : null);
}

/** The text a conversion or a score works on: the final text once finalized, else the current text. */
export function workingText(row: ContentRow): string {
  return finalText(row) ?? row.content;
}

/** Today in the server's time zone (the machine's when none is configured), for `is_overdue`. */
export function serverToday(timezone: string | undefined, nowMs: number): string {
  return todayIn(timezone ?? machineTimezone(), nowMs);
}

/** Who is asking, and where: what every lifecycle operation needs to find records. */
export interface Caller {
  account: AccountRow;
  workspace?: WorkspaceRow;
  /** Throws 403 workspace_mismatch when a record lies outside a bound key's workspace. */
  checkRecordWorkspace(workspaceId: string): void;
}

/** 404 content_not_found for a content id. */
export function contentNotFound(id: number): ApiError {
  return new ApiError("content_not_found", `No content ${id}.`, { content_id: id });
}

/** Finds a content record of the caller's account (404 otherwise) and checks the key's binding. */
export function findContent(store: Store, caller: Caller, id: number): ContentRow {
  const row = store.contents.byId(id);
  if (!row || row.account_id !== caller.account.id) throw contentNotFound(id);
  caller.checkRecordWorkspace(row.workspace_id);
  // An explicit workspace_id that is not the record's: the record is not in that workspace.
  if (caller.workspace && caller.workspace.id !== row.workspace_id)
    throw new ApiError("content_not_found", `No content ${id} in workspace ${caller.workspace.id}.`, {
      content_id: id,
    });
  return row;
}

/** 409 invalid_status unless the record is in one of the allowed statuses. */
export function requireStatus(row: ContentRow, allowed: ContentStatus[], action: string): void {
  if (!allowed.includes(row.status))
    throw invalidStatus(
      `Cannot ${action} content ${row.id}: it is ${row.status}; it must be ${allowed.join(" or ")}.`,
      row.status,
      allowed,
    );
}

/** What a generation request names. */
export interface GenerateRequest {
  template_id: number;
  user_direction: string;
  content_id?: number;
  memory_ids?: number[];
  reference_material_ids?: number[];
  seed?: number;
}

function missing(code: "memory_not_found" | "reference_material_not_found", what: string, ids: number[]) {
  return new ApiError(code, `${what} not found: ${ids.join(", ")}.`, { missing_ids: ids });
}

/** Records named by id must be the caller's and in the request's workspace (DESIGN §3). */
function checkInWorkspace<T extends { id: number; workspace_id: string }>(
  caller: Caller,
  workspace: WorkspaceRow,
  rows: T[],
  requested: number[],
  code: "memory_not_found" | "reference_material_not_found",
  what: string,
): T[] {
  // A key bound to another workspace than a record's is refused first (403), as DESIGN §3 orders the checks.
  for (const r of rows) caller.checkRecordWorkspace(r.workspace_id);
  const found = new Map(rows.map((r) => [r.id, r]));
  // Every id the request cannot use, in the order named: those that are not the account's and those of another
  // workspace, so that a client correcting them learns of all in one answer.
  const unusable = requested.filter((id) => found.get(id)?.workspace_id !== workspace.id);
  if (unusable.length === 0) return rows;
  const elsewhere = unusable.some((id) => found.has(id));
  throw missing(code, elsewhere ? `${what} in workspace ${workspace.id}` : what, [...new Set(unusable)]);
}

/**
 * The memories, passages and voice a piece draws on, after checking every named id (DESIGN §3). With a database
 * `location` the passages are left for the pool thread to read (generation/passages.ts).
 */
export function gatherSources(
  store: Store,
  caller: Caller,
  workspace: WorkspaceRow,
  req: { memory_ids?: number[]; reference_material_ids?: number[] },
  location?: DbLocation,
): Pick<GenerationInput, "memories" | "passages" | "passagesFrom" | "voice"> {
  const memoryIds = [...new Set(req.memory_ids ?? [])];
  const referenceIds = [...new Set(req.reference_material_ids ?? [])];
  const memories = checkInWorkspace(
    caller,
    workspace,
    store.memories.byIds(caller.account.id, memoryIds),
    memoryIds,
    "memory_not_found",
    "Memories",
  );
  const references = checkInWorkspace(
    caller,
    workspace,
    store.references.byIds(caller.account.id, referenceIds),
    referenceIds,
    "reference_material_not_found",
    "Reference materials",
  );
  const titles = new Map(references.map((r) => [r.id, r.title]));
  const fromPool = location !== undefined && referenceIds.length > 0;
  const passages = fromPool ? [] : readPassages(store, referenceIds, titles);
  const passagesFrom = fromPool ? { db: location, ids: referenceIds, titles: [...titles] } : undefined;
  const applyVoice = learningPreferences(store, caller.account.id).apply_to_generation;
  const profile = applyVoice ? store.learning.profileOfWorkspace(workspace.id) : undefined;
  return {
    memories: memories.map((m) => ({ id: m.id, kind: m.kind, title: m.title, content: m.content })),
    passages,
    ...(passagesFrom ? { passagesFrom } : {}),
    voice: profile ? parseTraits(profile.traits) : null,
  };
}

/**
 * Gathers the engine's input for a generation; throws the coded errors for unknown or foreign ids. With a database
 * `location` the pool thread reads the passages (gatherSources).
 */
export function generationInput(
  store: Store,
  caller: Caller,
  workspace: WorkspaceRow,
  req: GenerateRequest,
  location?: DbLocation,
): GenerationInput {
  const template = requireTemplate(store, caller.account.id, req.template_id);
  return {
    template: {
      id: template.id,
      name: template.name,
      format: template.format,
      tone: template.tone,
      target_words: template.target_words,
      sections: template.sections as SectionSpec[],
    },
    direction: req.user_direction,
    ...gatherSources(store, caller, workspace, req, location),
    seed: req.seed ?? 0,
  };
}

/**
 * 404 when the workspace a request resolved is gone, read from the database (not the row cache): deleted while the
 * request waited for its body, its turn (http/app.ts) or the worker pool (its rows would fail their foreign key, a
 * 500). Called right before, or inside the transaction of, the write into it.
 */
export function requireWorkspaceStill(store: Store, workspaceId: string): void {
  if (!store.workspaces.byId(workspaceId)) throw workspaceNotFound(workspaceId);
}

/**
 * 404 when a memory or reference material the generation names was deleted while it ran: its passages, read by the
 * pool thread after the delete, were none, and the piece was stored and answered 201 with no sources from it. The
 * generation is stored only while everything it names is still there (a record's ids are never reused).
 */
function requireSourcesStill(store: Store, accountId: number, req: GenerateRequest): void {
  for (const [ids, present, code, what] of [
    [req.memory_ids, (i: number[]) => store.memories.presentIds(accountId, i), "memory_not_found", "Memories"],
    [
      req.reference_material_ids,
      (i: number[]) => store.references.byIds(accountId, i).map((r) => r.id),
      "reference_material_not_found",
      "Reference materials",
    ],
  ] as const) {
    if (!ids?.length) continue;
    const there = new Set(present(ids));
    const gone = [...new Set(ids)].filter((id) => !there.has(id));
    if (gone.length > 0)
      throw new ApiError(code, `${what} deleted while the piece was generated: ${gone.join(", ")}.`, {
        missing_ids: gone,
      });
  }
}

/** Stores a finished generation: a new record or a new version of a draft/generated one, in one transaction. */
export function saveGeneration(
  store: Store,
  caller: Caller,
  workspace: WorkspaceRow,
  req: GenerateRequest,
  output: GenerationOutput,
  model: string,
  nowMs: number,
): { row: ContentRow; created: boolean } {
  const now = iso(nowMs);
  return store.transaction(() => {
    let row: ContentRow;
    let created = false;
    requireSourcesStill(store, caller.account.id, req);
    if (req.content_id !== undefined) {
      // Re-read inside the transaction: the record may have changed while the engine ran.
      row = findContent(store, caller, req.content_id);
      requireStatus(row, ["draft", "generated"], "generate into");
    } else {
      requireWorkspaceStill(store, workspace.id);
      row = store.contents.create({
        accountId: caller.account.id,
        workspaceId: workspace.id,
        templateId: req.template_id,
        title: output.title,
        content: "",
        status: "generated",
        now,
      });
      created = true;
    }
    const version = row.version_count + 1;
    store.contents.addVersion({
      contentId: row.id,
      version,
      kind: "generated",
      title: output.title,
      text: output.text,
      model,
      details: {
        user_direction: req.user_direction,
        memory_ids: req.memory_ids ?? [],
        reference_material_ids: req.reference_material_ids ?? [],
        seed: req.seed ?? 0,
        sources: output.sources,
      },
      now,
    });
    const saved = store.contents.save(
      {
        ...row,
        template_id: req.template_id,
        title: output.title,
        content: output.text,
        status: "generated",
        version_count: version,
      },
      now,
      // The text is the version's (stored once).
      version,
    );
    return { row: saved, created };
  });
}

/** A finalization as asked: the text, and the editing time in seconds, null when the caller did not say it. */
export interface FinalizeRequest {
  content_id: number;
  finalized_content: string;
  edit_seconds: number | null;
}

/** Finalizes generated content (spec §4.2): saves the text and queues learning, all before answering. */
export function finalizeContent(
  store: Store,
  caller: Caller,
  req: FinalizeRequest,
  nowMs: number,
): { row: ContentRow; jobId: string | null } {
  const now = iso(nowMs);
  return store.transaction(() => {
    const row = findContent(store, caller, req.content_id);
    requireStatus(row, ["generated"], "finalize");
    const generated = store.contents.lastGenerated(row.id);
    const version = row.version_count + 1;
    store.contents.addVersion({
      contentId: row.id,
      version,
      kind: "finalized",
      title: row.title,
      text: req.finalized_content,
      model: null,
      details: { edit_seconds: req.edit_seconds },
      now,
    });
    const saved = store.contents.save(
      {
        ...row,
        // Stored once, as the finalized version's text (see finalText and sql/0010_text_version.sql).
        content: req.finalized_content,
        finalized_content: null,
        status: "finalized",
        version_count: version,
      },
      now,
      version,
    );
    const enabled = learningPreferences(store, caller.account.id).enabled;
    const quota = PLAN_LIMITS[caller.account.plan].analysesPerMonth;
    let jobId: string | null = null;
    if (enabled && generated && analysesUsed(store, caller.account.id, quotaPeriod(nowMs).start) < quota) {
      jobId = prefixedId("lj");
      store.learning.useQuota(caller.account.id, now.slice(0, 7));
      store.learning.enqueue({
        id: jobId,
        accountId: caller.account.id,
        workspaceId: row.workspace_id,
        contentId: row.id,
        // The texts by reference: both are stored as versions already (a job holding copies wrote ~70 KB more).
        input: { generated_version: generated.version, finalized_version: version, edit_seconds: req.edit_seconds },
        now,
      });
    }
    return { row: saved, jobId };
  });
}

/** A caller as the writer thread receives it (writer.ts): the caller's rows instead of its request context. */
export interface CallerRows {
  account: AccountRow;
  workspace?: WorkspaceRow;
  /** The workspace the caller's API key is bound to, if any. */
  boundWorkspaceId: string | null;
}

/** The Caller of plain rows: the binding check the request context makes (http/app.ts), made on the writer thread. */
function callerOf(rows: CallerRows): Caller {
  const bound = rows.boundWorkspaceId;
  return {
    account: rows.account,
    workspace: rows.workspace,
    checkRecordWorkspace(workspaceId) {
      if (bound !== null && bound !== workspaceId) throw workspaceMismatch(bound, workspaceId);
    },
  };
}

/** A finalization as the writer thread receives it. */
export interface FinalizeTask extends CallerRows {
  req: FinalizeRequest;
  nowMs: number;
}

/** What crosses back from a finalization on the writer thread: not the texts (the caller has them). */
export interface Finalized {
  contentId: number;
  workspaceId: string;
  version: number;
  updatedAt: string;
  jobId: string | null;
}

/** finalizeContent for a caller described by plain data (the writer thread's operation). */
export function finalizeTask(store: Store, task: FinalizeTask): Finalized {
  const { row, jobId } = finalizeContent(store, callerOf(task), task.req, task.nowMs);
  return {
    contentId: row.id,
    workspaceId: row.workspace_id,
    version: row.version_count,
    updatedAt: row.updated_at,
    jobId,
  };
}

/** A finished generation as the writer thread receives it: saveGeneration's arguments as plain data. */
export interface GenerationSaveTask extends CallerRows {
  /** The workspace a new record goes to. */
  target: WorkspaceRow;
  req: GenerateRequest;
  output: GenerationOutput;
  model: string;
  nowMs: number;
}

/**
 * saveGeneration for a caller described by plain data (the writer thread's operation). The record crosses back
 * without its text, which is the output's (the caller has it): `content` is empty.
 */
export function saveGenerationTask(store: Store, task: GenerationSaveTask): { row: ContentRow; created: boolean } {
  const { row, created } = saveGeneration(
    store,
    callerOf(task),
    task.target,
    task.req,
    task.output,
    task.model,
    task.nowMs,
  );
  return { row: { ...row, content: "" }, created };
}

/** A new draft as the writer thread receives it (POST /contents). */
export interface DraftCreateTask {
  accountId: number;
  workspaceId: string;
  templateId: number | null;
  title: string;
  content: string;
  now: string;
}

/** Stores a draft on the writer thread; the record crosses back without its text (the caller has it). */
export function draftCreateTask(store: Store, task: DraftCreateTask): ContentRow {
  const row = store.transaction(() => {
    // The workspace can have been deleted while the request waited for its turn.
    requireWorkspaceStill(store, task.workspaceId);
    return store.contents.create({ ...task, status: "draft" });
  });
  return { ...row, content: "" };
}

/** An edit of a record's title or text as the writer thread receives it (PATCH /contents/{id}). */
export interface ContentEditTask extends CallerRows {
  id: number;
  title?: string;
  content?: string;
  now: string;
}

/**
 * Changes the title of a record not yet published or the text of a draft or generated piece, with the request's
 * checks, on the writer thread.
 * A field equal to what the record has (a record read and written back) is no change to it, in any status: a
 * finalized piece's own text sent back with a new title is a retitling, not an edit of the text. A new text is stored
 * in the row (no version is added for an edit); an unchanged one stays where it is. The record crosses back without a
 * text the caller sent.
 */
export function contentEditTask(store: Store, task: ContentEditTask): ContentRow {
  const saved = store.transaction(() => {
    const row = findContent(store, callerOf(task), task.id);
    const content = task.content === row.content ? undefined : task.content;
    const title = task.title === row.title ? undefined : task.title;
    if (content !== undefined) requireStatus(row, ["draft", "generated"], "edit the text of");
    // A published record is frozen whole, its title too: it answers the title it was published with.
    if (title !== undefined) requireStatus(row, ["draft", "generated", "finalized"], "change the title of");
    // Nothing to change (an empty PATCH, or the record's own fields sent back): the record as it is, updated_at too.
    if (title === undefined && content === undefined) return row;
    return store.contents.save(
      { ...row, title: title ?? row.title, content: content ?? row.content },
      task.now,
      content === undefined ? row.text_version : null,
    );
  });
  return task.content === undefined ? saved : { ...saved, content: "" };
}

/** A planned date set, changed or cleared (PATCH /contents/{id}/schedule), as the writer thread receives it. */
export interface ContentScheduleTask extends CallerRows {
  id: number;
  at: string | null;
  day: string | null;
  now: string;
}

/** Plans a record on the writer thread, after the request's checks; published records cannot be planned anew. */
export function contentScheduleTask(store: Store, task: ContentScheduleTask): ContentRow {
  return store.transaction(() => {
    const row = findContent(store, callerOf(task), task.id);
    // The planned date the record has, sent back, is no change (a published record's too): the record as it is.
    if (task.at === row.scheduled_publish_at) return row;
    requireStatus(row, ["draft", "generated", "finalized"], "plan");
    return store.contents.schedule(row.id, task.at, task.day, task.now);
  });
}

/** Publishes a finalized record on the writer thread, after the request's checks. */
export function contentPublishTask(store: Store, task: CallerRows & { id: number; now: string }): ContentRow {
  return store.transaction(() => {
    const row = findContent(store, callerOf(task), task.id);
    requireStatus(row, ["finalized"], "publish");
    return store.contents.publish(row.id, task.now);
  });
}
