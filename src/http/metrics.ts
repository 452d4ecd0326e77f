/**
 * The server's Prometheus metrics (GET /metrics, docs/operations.md), kept with prom-client: requests by route pattern
 * and status, their latency, rate-limit refusals, the worker pools' tasks in flight, the learning backlog and the
 * database's size. A request costs two lookups in a map and two updates (observe); the gauges are read only when
 * scraped. test/http/metrics.test.ts.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { TaskPool, TaskTable } from "../runtime/task-pool.js";

/** What the gauges read when scraped: handed in by the server, which knows the database and the queue. */
export interface MetricSources {
  /** Learning jobs queued or running. */
  learningBacklog(): number;
  /** The database's bytes on disk (the file and its WAL); undefined for an in-memory one. */
  databaseBytes(): number | undefined;
}

/** The route label of a request no route matched (404, 405): one value, so that a scan of paths adds no series. */
export const UNMATCHED_ROUTE = "(unmatched)";

/** Latency buckets in seconds: from a cached read (under a millisecond) to a long generation. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The metrics of one server. */
export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: "content_service_http_requests_total",
    help: "HTTP requests answered, by route (its path pattern), method and status.",
    labelNames: ["route", "method", "status"] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: "content_service_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer's head, by route and method.",
    labelNames: ["route", "method"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: "content_service_rate_limit_refusals_total",
    help: "Requests refused 429 rate_limit_exceeded.",
    registers: [this.registry],
  });
  private readonly inFlight = new Gauge({
    name: "content_service_worker_tasks_in_flight",
    help: "Tasks handed to a worker pool and not yet finished (queued or running), by pool.",
    labelNames: ["pool"] as const,
    registers: [this.registry],
  });
  /** The series of each route, method and status, looked up once. */
  private readonly series = new Map<string, { count: Counter.Internal; time: Histogram.Internal<string> }>();
  private processMetrics = false;

  constructor(sources: MetricSources) {
    new Gauge({
      name: "content_service_learning_backlog",
      help: "Learning jobs queued or running.",
      registers: [this.registry],
      collect() {
        this.set(sources.learningBacklog());
      },
    });
    new Gauge({
      name: "content_service_database_bytes",
      help: "The database's size on disk: its file and its write-ahead log.",
      registers: [this.registry],
      collect() {
        const bytes = sources.databaseBytes();
        if (bytes !== undefined) this.set(bytes);
      },
    });
  }

  /** Also reports prom-client's process metrics (CPU, memory, event-loop lag, handles): a server's, once. */
  collectProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry, prefix: "content_service_" });
  }

  /** Counts one answer: its route pattern (or UNMATCHED_ROUTE), method, status and seconds since it arrived. */
  observe(route: string, method: string, status: number, seconds: number, rateLimited: boolean): void {
    const id = `${route} ${method} ${status}`;
    let found = this.series.get(id);
    if (!found) {
      found = {
        count: this.requests.labels(route, method, String(status)),
        time: this.latency.labels(route, method),
      };
      this.series.set(id, found);
    }
    found.count.inc();
    found.time.observe(seconds);
    if (rateLimited) this.refusals.inc();
  }

  /** A pool whose tasks in flight are counted under `name`. */
  counted<T extends TaskTable>(name: string, pool: TaskPool<T>): TaskPool<T> {
    const gauge = this.inFlight.labels(name);
    gauge.set(0);
    return {
      run(task, input, transfer) {
        gauge.inc();
        const running = pool.run(task, input, transfer);
        running.then(
          () => gauge.dec(),
          () => gauge.dec(),
        );
        return running;
      },
      close: () => pool.close(),
    };
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
