/**
 * The learning job a finalization started (GET /learning-jobs/{id}), read again every second until it succeeds or
 * fails for good, and what it learned from the edit, in words.
 */
import { useEffect, useState } from "preact/hooks";
import { api, ok } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { ErrorNote } from "../../ui/error-note.js";
import { Busy } from "../../ui/page.js";

type Job = components["schemas"]["LearningJob"];

/** The part of a job's result the page tells (domain/learning/analyze.ts AnalysisResult). */
interface Learned {
  substitutions?: { from: string; to: string; count: number }[];
  removed_phrases?: string[];
  added_phrases?: string[];
  words_added?: number;
  words_removed?: number;
  sentence_length?: { before: number; after: number };
  edit_seconds?: number | null;
}

/** A failed job is tried again while next_attempt_at is set: only then is its failure final. */
const finished = (job: Job) => job.status === "succeeded" || (job.status === "failed" && !job.next_attempt_at);

function useJob(jobId: string) {
  const [job, setJob] = useState<Job>();
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let current = true;
    const read = async () => {
      try {
        const next = await ok(api.GET("/api/v1/learning-jobs/{jobId}", { params: { path: { jobId } } }));
        if (!current) return;
        setJob(next);
        if (!finished(next)) timer = setTimeout(read, 1000);
      } catch (e) {
        if (current) setError(e);
      }
    };
    read();
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [jobId]);
  return { job, error };
}

function LearnedList({ learned }: { learned: Learned }) {
  const lines: string[] = [];
  for (const s of learned.substitutions ?? [])
    lines.push(`You wrote “${s.to}” where the draft said “${s.from}” (${s.count}×).`);
  for (const p of learned.removed_phrases ?? []) lines.push(`You removed: “${p}”.`);
  for (const p of learned.added_phrases ?? []) lines.push(`You added: “${p}”.`);
  if (learned.sentence_length)
    lines.push(
      `Sentences averaged ${learned.sentence_length.before} words before and ${learned.sentence_length.after} after.`,
    );
  lines.push(`Words added: ${learned.words_added ?? 0}; words removed: ${learned.words_removed ?? 0}.`);
  return (
    <ul class="learned">
      {lines.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}

/** A learning job's progress, polled until it ends, then what it learned in words. */
export function LearningJob({ jobId }: { jobId: string }) {
  const { job, error } = useJob(jobId);
  return (
    <section class="panel" aria-labelledby="learning-heading">
      <h2 id="learning-heading">What the edit taught</h2>
      <ErrorNote error={error} />
      {!job || !finished(job) ? <Busy label={`Learning from the edit (${job?.status ?? "queued"})`} /> : null}
      {job?.status === "failed" && finished(job) ? (
        <p class="error-note" role="alert">
          The learning job failed: {job.error}
        </p>
      ) : null}
      {job?.status === "succeeded" ? <LearnedList learned={(job.result ?? {}) as Learned} /> : null}
    </section>
  );
}
