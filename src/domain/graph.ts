/**
 * The knowledge graph of a workspace (DESIGN §6): entities — proper-noun phrases ("Acme Corp", "New York")
 * and key phrases (frequent two- and three-word noun-like phrases) — and their co-occurrence in sentences,
 * drawn from the workspace's reference materials and finalized or published contents. Extraction is a pure
 * function run on the worker pool (graph-extract.ts, graph-sources.ts); GraphService keeps each workspace's graph
 * caught up in the background.
 */

import type { ExtractedDocument, GraphSource } from "../db/graph.js";
import type { Store } from "../db/store.js";
import type { DbLocation } from "../db/thread-store.js";
import type { Logger } from "../runtime/log.js";
import { TaskLimitError, type TaskPool } from "../runtime/task-pool.js";
import { type Clock, iso } from "./clock.js";
import type { extractGraph } from "./graph-extract.js";
import { type extractSource, sourceText } from "./graph-sources.js";
import { inlineWriter, type StoreWriter } from "./writer.js";

/** Sources extracted at once on the pool. */
const BATCH = 4;

/** The extraction stored for a source whose extraction was stopped (workers/limits.ts). */
const NOTHING_EXTRACTED: ExtractedDocument = { entities: [], pairs: [] };

/** The pool tasks the graph service extracts sources with (workers/tasks.ts runs them). */
export type GraphTasks = { extractSource: typeof extractSource; extractGraph: typeof extractGraph };

/**
 * Keeps each workspace's graph caught up with its sources, in the background: `touch` after a change queues
 * the workspace (several changes in a row coalesce into one catch-up), one catch-up per workspace runs at a
 * time, and extraction runs on the worker pool. Requests never wait for it. The server's pool threads read the
 * sources themselves and the writer thread saves what they yield (domain/writer.ts); tests send the texts.
 *
 * A catch-up's bookkeeping runs on the HTTP thread between extractions, so it looks only at the sources the queued changes
 * name when they all name one; otherwise (a deletion, a caller that does not know, the first catch-up of a
 * workspace since the service started, a failed catch-up) it reads the workspace's queue, which the writes that
 * change sources fill in their own transactions (sql/0023), so that a change never seen (lost to a restart) is
 * still taken in, and drops stale documents on the writer thread.
 */
export class GraphService {
  /** The changed sources of each queued workspace by kind and id, or null when the whole workspace is to be scanned. */
  private queued = new Map<string, Map<string, GraphSource> | null>();
  private running = new Map<string, Promise<void>>();
  /** Workspaces scanned whole since the service started: only their named changes may skip the scan. */
  private scanned = new Set<string>();
  private stopped = false;

  constructor(
    private store: Store,
    private pool: TaskPool<GraphTasks>,
    private clock: Clock,
    private logger: Logger,
    /** Where the graph's writes run (the server: its writer thread; see writer.ts). */
    private writer: StoreWriter = inlineWriter(store),
    /** The database file, for the pool's threads to read sources from (the server); none: texts are sent. */
    private location?: DbLocation,
  ) {}

  /**
   * Notes that a workspace's sources changed (a reference added or deleted, a content finalized or deleted):
   * `source` when the change is that source's new version, none when something went or the caller does not know.
   */
  touch(workspaceId: string, source?: GraphSource): void {
    if (this.stopped) return;
    const named = this.queued.get(workspaceId);
    if (!source) this.queued.set(workspaceId, null);
    else if (named !== null) {
      const sources = named ?? new Map<string, GraphSource>();
      // The latest version of a source is the one to take in; sourceText checks it still is.
      sources.set(`${source.kind}:${source.id}`, source);
      this.queued.set(workspaceId, sources);
    }
    if (!this.running.has(workspaceId)) this.start(workspaceId);
  }

  /**
   * How many sources a workspace's graph has yet to take in or drop, from the count its writes keep (no scan: a read
   * asks it); queues a catch-up when there are any.
   */
  behind(workspaceId: string): number {
    const n = this.store.graph.pendingCount(workspaceId);
    if (n > 0) this.touch(workspaceId);
    return n;
  }

  /** Resolves when no catch-up is queued or running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()]);
  }

  /** Takes no more work and waits for the catch-ups in hand. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
  }

  private start(workspaceId: string): void {
    const run = (async () => {
      // After the request that made the change has answered.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queued.has(workspaceId) && !this.stopped) {
        const named = this.queued.get(workspaceId);
        this.queued.delete(workspaceId);
        try {
          await this.catchUp(workspaceId, named ? [...named.values()] : null);
        } catch (e) {
          // The changes it held are not queued again: the next catch-up scans the workspace instead.
          this.scanned.delete(workspaceId);
          // A workspace deleted while its graph caught up (its rows went with it: a foreign key failure) is no fault.
          if (!this.store.workspaces.byId(workspaceId)) {
            this.logger.info("knowledge graph update dropped: the workspace was deleted", {
              workspace_id: workspaceId,
            });
            continue;
          }
          this.logger.error("knowledge graph update failed", {
            workspace_id: workspaceId,
            error: e instanceof Error ? e.message : String(e),
          });
        }
      }
    })().finally(() => {
      this.running.delete(workspaceId);
      // A touch between the last check and here would otherwise wait for the next change.
      if (this.queued.has(workspaceId) && !this.stopped) this.start(workspaceId);
    });
    this.running.set(workspaceId, run);
  }

  /**
   * A source's extraction as JSON (one string crosses between threads, not thousands of small objects), or null when
   * the source no longer belongs in the graph. With a database location the pool's thread reads the text itself.
   */
  private async extract(workspaceId: string, source: GraphSource): Promise<string | null> {
    try {
      if (this.location) return await this.pool.run("extractSource", { db: this.location, workspaceId, source });
      const input = sourceText(this.store, workspaceId, source);
      return input ? JSON.stringify(await this.pool.run("extractGraph", input)) : null;
    } catch (e) {
      if (!(e instanceof TaskLimitError)) throw e;
      // Stored as a source that yields nothing: extracting it again would be stopped again, at every catch-up.
      this.logger.error("knowledge graph extraction stopped past its processing time", {
        workspace_id: workspaceId,
        source: `${source.kind} ${source.id}`,
      });
      return JSON.stringify(NOTHING_EXTRACTED);
    }
  }

  /**
   * Drops what changed sources yielded, extracts new sources on the pool, and stores each as it comes: the
   * `named` sources only (null: every source of the workspace) once the workspace has been scanned whole.
   */
  private async catchUp(workspaceId: string, named: GraphSource[] | null): Promise<void> {
    if (!this.store.workspaces.byId(workspaceId)) return;
    const full = named === null || !this.scanned.has(workspaceId);
    let pending: GraphSource[];
    if (full) {
      await this.writer.run("graphRemoveStale", { workspaceId });
      pending = this.store.graph.pendingSources(workspaceId);
    } else pending = named.filter((source) => !this.store.graph.isExtracted(source));
    for (let i = 0; i < pending.length && !this.stopped; i += BATCH) {
      await Promise.all(
        pending.slice(i, i + BATCH).map(async (source) => {
          const extracted = await this.extract(workspaceId, source);
          if (extracted === null) {
            // A content that left the graph, or a stale touch: its document goes only if it is stale, as in a scan.
            if (source.kind === "content")
              await this.writer.run("graphRemoveStaleOf", { workspaceId, contentId: source.id });
            return;
          }
          // Saved only if the source is still as extracted (checked in the same transaction): a change meanwhile
          // queues its own catch-up.
          await this.writer.run("graphSave", { workspaceId, source, extracted, now: iso(this.clock.now()) });
        }),
      );
    }
    if (full) this.scanned.add(workspaceId);
    if (this.store.workspaces.byId(workspaceId))
      await this.writer.run("graphMarkUpdated", { workspaceId, now: iso(this.clock.now()) });
  }
}
