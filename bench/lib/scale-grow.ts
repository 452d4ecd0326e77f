/**
 * Growing a data directory through the public API for bench:scale: contents (most of them drafts; one in 20
 * generated and finalized, one in 200 of those published, one in 100 converted; one in 10 planned on a day spread
 * over four years around today) and a tenth as many reference materials, with corpus.ts's varied texts. Concurrent
 * requests; progress (writes/s) printed every five seconds.
 */
import { document } from "./corpus.js";
import { sendJson } from "./proc.js";

/** The texts sent that the knowledge graph takes in (references and finalized contents), for its entity count. */
export interface GraphSource {
  seed: number;
  words: number;
  format: "plain" | "markdown";
}

export interface Grown {
  writes: number;
  errors: number;
  seconds: number;
  sources: GraphSource[];
  /** Ids of contents made, one in ten kept, for the reads by id. */
  sampleIds: number[];
}

const TARGET_FORMATS = ["html", "markdown", "plain_text", "social_thread", "email"];
const CONTENT_WORDS = 120;
const FINAL_WORDS = 300;
const REFERENCE_WORDS = 400;
/** Seeds of reference texts start here (content i's is i). */
export const REFERENCE_SEED = 10_000_000;

/** A planned day 2 years either side of `today`, from the content's index (YYYY-MM-DD). */
function plannedDay(i: number, today: number): string {
  const offset = ((i * 7919) % 1461) - 730;
  return new Date(today + offset * 86_400_000).toISOString().slice(0, 10);
}

export class Grower {
  private writes = 0;
  private errors = 0;
  private readonly failures: string[] = [];
  constructor(
    private readonly url: string,
    private readonly key: string,
    private readonly today = Date.now(),
  ) {}

  /** One write; a non-2xx answer is counted (the first ten printed), and a run of 100 of them stops the bench. */
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field.
  private async write(method: string, path: string, body?: unknown): Promise<any> {
    const r = await sendJson(`${this.url}/api/v1${path}`, method, this.key, body);
    this.writes++;
    if (r.status >= 200 && r.status < 300) return r.body;
    this.errors++;
    if (this.failures.length < 10) {
      this.failures.push(`${method} ${path}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      process.stderr.write(`[scale] ${this.failures.at(-1)}\n`);
    }
    if (this.errors >= 100) throw new Error(`100 failed writes; first: ${this.failures[0]}`);
    return undefined;
  }

  private async content(i: number, grown: Grown): Promise<void> {
    let id: number | undefined;
    if (i % 20 === 0) {
      const generated = await this.write("POST", "/generate", {
        template_id: 1,
        user_direction: `Notes on the project, part ${i}`,
        seed: i,
      });
      id = generated?.content_id;
      if (id !== undefined) {
        const finalized = await this.write("POST", "/finalizeContent", {
          content_id: id,
          finalized_content: document(FINAL_WORDS, i),
          edit_seconds: 120,
        });
        if (finalized) grown.sources.push({ seed: i, words: FINAL_WORDS, format: "markdown" });
        if (finalized && i % 200 === 0) await this.write("POST", `/contents/${id}/publication`, {});
        if (finalized && i % 100 === 0)
          await this.write("POST", "/conversions", {
            content_id: id,
            target_format: TARGET_FORMATS[(i / 100) % TARGET_FORMATS.length],
          });
      }
    } else {
      id = (await this.write("POST", "/contents", { title: `Content ${i}`, content: document(CONTENT_WORDS, i) }))
        ?.content_id;
    }
    if (id === undefined) return;
    if (i % 10 === 1)
      await this.write("PATCH", `/contents/${id}/schedule`, { scheduled_publish_at: plannedDay(i, this.today) });
    if (i % 10 === 3) grown.sampleIds.push(id);
  }

  private async reference(j: number, grown: Grown): Promise<void> {
    const made = await this.write("POST", "/reference-materials", {
      title: `Reference ${j}`,
      content: document(REFERENCE_WORDS, REFERENCE_SEED + j),
      format: "text",
    });
    if (made) grown.sources.push({ seed: REFERENCE_SEED + j, words: REFERENCE_WORDS, format: "plain" });
  }

  /** Contents `from` to `to` - 1 and their tenth of references, `concurrency` requests at a time. */
  async grow(from: number, to: number, concurrency: number, label: string): Promise<Grown> {
    const grown: Grown = { writes: 0, errors: 0, seconds: 0, sources: [], sampleIds: [] };
    const writes0 = this.writes;
    const errors0 = this.errors;
    const started = performance.now();
    let next = from;
    let lastWrites = this.writes;
    let lastAt = started;
    const progress = setInterval(() => {
      const now = performance.now();
      const rate = ((this.writes - lastWrites) * 1000) / (now - lastAt);
      process.stderr.write(
        `[scale] ${label}: ${next - from}/${to - from} contents, ${this.writes - writes0} writes, ` +
          `${Math.round(rate)} writes/s, ${this.errors - errors0} errors\n`,
      );
      lastWrites = this.writes;
      lastAt = now;
    }, 5_000);
    const worker = async () => {
      while (next < to) {
        const i = next++;
        await this.content(i, grown);
        if (i % 10 === 0) await this.reference(i / 10, grown);
      }
    };
    try {
      await Promise.all(Array.from({ length: concurrency }, worker));
    } finally {
      clearInterval(progress);
    }
    grown.writes = this.writes - writes0;
    grown.errors = this.errors - errors0;
    grown.seconds = (performance.now() - started) / 1000;
    return grown;
  }
}
