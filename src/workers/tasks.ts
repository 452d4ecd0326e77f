/** The tasks run on the worker pools: pure functions of their input, the WAL checkpoint, backups' copy and check. */
import { type CheckpointInput, checkpointWal } from "../db/checkpoints.js";
import type { DbLocation } from "../db/thread-store.js";
import { type ConversionInput, convertContent } from "../domain/conversions.js";
import { type GenerationInput, generateBuiltin } from "../domain/generation/builtin.js";
import { withPassages } from "../domain/generation/passages.js";
import { buildPrompt, finishAnswer } from "../domain/generation/prompt.js";
import { builtinThesis, type ThesisInput, thesisPrompt } from "../domain/generation/thesis.js";
import { type ExtractionInput, extractGraph, extractSource } from "../domain/graph.js";
import { graphRead } from "../domain/graph-reads.js";
import { type RenderRequest, renderPng } from "../domain/images.js";
import { type AnalysisInput, analyzeEdit } from "../domain/learning/analyze.js";
import { analyzeJob } from "../domain/learning/runner.js";
import { hashPassword, verifyPassword } from "../domain/passwords.js";
import { type ScoringInput, scoreText } from "../domain/scoring.js";
import { ingestText, type TextFormat } from "../domain/text.js";
import { runWrite, type WriteTaskInput } from "../domain/writer.js";
import { checkCopy, copyDatabase } from "../jobs/backups.js";

/** Every task by name, with its input and output. */
export const tasks = {
  /** Does nothing: sent to a pool that keeps no idle thread to make it start one (pool.ts). */
  startThread: (_input: null) => null,
  hashPassword: (input: { password: string }) => hashPassword(input.password),
  verifyPassword: (input: { password: string; hash: string }) => verifyPassword(input.password, input.hash),
  renderImage: (input: RenderRequest): Uint8Array => renderPng(input),
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
};

export type Tasks = typeof tasks;
export type TaskName = keyof Tasks;
