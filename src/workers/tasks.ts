/** The tasks run on the worker pools: pure functions of their input, the WAL checkpoint, backups' copy and check. */
import { move, transferableSymbol, valueSymbol } from "piscina";
import { checkCopy, copyDatabase } from "../db/backup-copy.js";
import { type CheckpointInput, checkpointWal } from "../db/checkpoints.js";
import { fsyncFile } from "../db/open.js";
import type { DbLocation } from "../db/thread-store.js";
import { type ConversionInput, convertContent } from "../domain/conversions.js";
import { type GenerationInput, generateBuiltin } from "../domain/generation/builtin.js";
import { withPassages } from "../domain/generation/passages.js";
import { buildPrompt, finishAnswer } from "../domain/generation/prompt.js";
import { builtinThesis, type ThesisInput, thesisPrompt } from "../domain/generation/thesis.js";
import { type ExtractionInput, extractGraph } from "../domain/graph-extract.js";
import { graphRead } from "../domain/graph-reads.js";
import { extractSource } from "../domain/graph-sources.js";
import { type RenderRequest, renderPng } from "../domain/images/render.js";
import { readUpload, sha256Hex, type UploadData } from "../domain/images/upload.js";
import { type AnalysisInput, analyzeEdit } from "../domain/learning/analyze.js";
import { analyzeJob } from "../domain/learning/runner.js";
import { hashPassword, verifyPassword } from "../domain/passwords.js";
import { type ScoringInput, scoreText } from "../domain/scoring.js";
import { ingestText, type TextFormat } from "../domain/text.js";
import { runWrite, type WriteTaskInput } from "../domain/writer.js";

/**
 * The buffer a thread can hand over to another (postMessage's transfer list) instead of copying it: copying 10 MiB
 * took the HTTP thread 4-8 ms each way. None for a view of part of a buffer (a small Buffer is a slice of Node's
 * shared pool), which is copied.
 */
export function transferable(bytes: Uint8Array): ArrayBuffer[] {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole && bytes.buffer instanceof ArrayBuffer ? [bytes.buffer] : [];
}

/** A task's answer whose bytes are handed over to the calling thread (piscina's move); the inline pool unwraps it. */
function handingOver<T extends object>(value: T, bytes: Uint8Array): T {
  const transfer = transferable(bytes);
  if (transfer.length === 0) return value;
  return move({ [transferableSymbol]: transfer, [valueSymbol]: value }) as unknown as T;
}

/** Every task by name, with its input and output. */
export const tasks = {
  /** Does nothing: sent to a pool that keeps no idle thread to make it start one (pool.ts). */
  startThread: (_input: null) => null,
  hashPassword: (input: { password: string }) => hashPassword(input.password),
  verifyPassword: (input: { password: string; hash: string }) => verifyPassword(input.password, input.hash),
  // The PNG and its hash (the image's ETag), the bytes handed over rather than copied.
  renderImage: (input: RenderRequest) => {
    const bytes = renderPng(input);
    return handingOver({ bytes, sha256: sha256Hex(bytes) }, bytes);
  },
  readUpload: (input: UploadData) => {
    const upload = readUpload(input);
    return upload.ok ? handingOver(upload, upload.bytes) : upload;
  },
  // Inputs that name their passages' source read them here (generation/passages.ts).
  generateBuiltin: (input: GenerationInput) => generateBuiltin(withPassages(input)),
  analyzeEdit: (input: AnalysisInput) => analyzeEdit(input),
  analyzeJob,
  thesis: (input: ThesisInput) => builtinThesis(withPassages(input)),
  llmPrompt: (input: GenerationInput) => buildPrompt(withPassages(input)),
  llmFinish: finishAnswer,
  thesisPrompt: (input: ThesisInput) => thesisPrompt(withPassages(input)),
  ingestText: (input: { text: string; format: TextFormat }) => ingestText(input),
  convertContent: (input: ConversionInput) => convertContent(input),
  scoreText: (input: ScoringInput) => scoreText(input),
  extractGraph: (input: ExtractionInput) => extractGraph(input),
  extractSource,
  graphRead,
  checkpointWal: (input: CheckpointInput) => checkpointWal(input),
  write: (input: WriteTaskInput) => runWrite(input),
  copyBackup: (input: { db: DbLocation; file: string }) => copyDatabase(input.db, input.file),
  checkBackup: (input: { file: string; addonFile?: string }) => checkCopy(input.file, input.addonFile),
  syncBackup: (input: { file: string }) => fsyncFile(input.file),
};

/** The task table's type: what each task takes and answers. */
export type Tasks = typeof tasks;
/** The name of one task of the table. */
export type TaskName = keyof Tasks;
