/**
 * The server's Prometheus metrics (GET /metrics, docs/operations.md), exposed with prom-client: requests by route
 * pattern and status, their latency, rate-limit refusals, the worker pools' tasks in flight, the learning backlog and
 * the database's size. An answer costs one lookup in a map and a few additions (observe): prom-client's own counters
 * and histograms hash their labels on every update (2.7 µs an answer, measured), so the requests' series are kept
 * here and handed to its registry as collectors, read only when scraped, like the gauges. test/http/metrics.test.ts.
 */
import { Counter, collectDefaultMetrics, Gauge, type Metric, Registry } from "prom-client";
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

const REQUESTS = "content_service_http_requests_total";
const LATENCY = "content_service_http_request_duration_seconds";

/** One route, method and status's answers: their count, and their latency's sum and buckets (each its own, not cumulative). */
interface Series {
  labels: { route: string; method: string; status: string };
  count: number;
  sum: number;
  buckets: Float64Array;
}

/** One value of a collector, as prom-client's registry formats it. */
interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** The latency of one route and method: its statuses' series summed. */
interface RouteLatency {
  labels: { route: string; method: string };
  count: number;
  sum: number;
  buckets: number[];
}

/** The series summed by route and method. */
function byRoute(series: Iterable<Series>): Iterable<RouteLatency> {
  const routes = new Map<string, RouteLatency>();
  for (const s of series) {
    const id = `${s.labels.route} ${s.labels.method}`;
    let r = routes.get(id);
    if (!r) {
      const labels = { route: s.labels.route, method: s.labels.method };
      r = { labels, count: 0, sum: 0, buckets: LATENCY_BUCKETS.map(() => 0) };
      routes.set(id, r);
    }
    r.count += s.count;
    r.sum += s.sum;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) r.buckets[i] += s.buckets[i];
  }
  return routes.values();
}

/** The latency histogram's samples in Prometheus's form: cumulative buckets, +Inf, sum and count. */
function latencySamples(series: Iterable<Series>): Sample[] {
  const out: Sample[] = [];
  for (const r of byRoute(series)) {
    let cumulative = 0;
    LATENCY_BUCKETS.forEach((le, i) => {
      cumulative += r.buckets[i];
      out.push({ metricName: `${LATENCY}_bucket`, labels: { ...r.labels, le }, value: cumulative });
    });
    out.push({ metricName: `${LATENCY}_bucket`, labels: { ...r.labels, le: "+Inf" }, value: r.count });
    out.push({ metricName: `${LATENCY}_sum`, labels: r.labels, value: r.sum });
    out.push({ metricName: `${LATENCY}_count`, labels: r.labels, value: r.count });
  }
  return out;
}

/** A metric of prom-client's registry whose samples are computed when it is scraped. */
function collector(name: string, help: string, type: "counter" | "histogram", samples: () => Sample[]): Metric {
  const metric = {
    name,
    help,
    type,
    aggregator: "sum",
    get: async () => ({ name, help, type, aggregator: "sum", values: samples() }),
    reset() {},
  };
  return metric as unknown as Metric;
}

/** The metrics of one server. */
export class ServerMetrics {
  readonly registry = new Registry();
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
  /** The answers of each route, by method and status (a GET's by its status alone). */
  private readonly series = new Map<string, Map<string | number, Series>>();
  private processMetrics = false;

  constructor(sources: MetricSources) {
    const all = () => [...this.series.values()].flatMap((ofRoute) => [...ofRoute.values()]);
    const requestSamples = () => all().map((s) => ({ labels: s.labels, value: s.count }));
    const requestsHelp = "HTTP requests answered, by route (its path pattern), method and status.";
    this.registry.registerMetric(collector(REQUESTS, requestsHelp, "counter", requestSamples));
    const latencyHelp = "Time from a request's arrival to its answer's head, by route and method.";
    this.registry.registerMetric(collector(LATENCY, latencyHelp, "histogram", () => latencySamples(all())));
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
    // Keyed by route, then method and status: a pattern string is interned, a key built of three would be hashed anew.
    let ofRoute = this.series.get(route);
    if (!ofRoute) {
      ofRoute = new Map();
      this.series.set(route, ofRoute);
    }
    const id = method === "GET" ? status : `${method} ${status}`;
    let found = ofRoute.get(id);
    if (!found) {
      const labels = { route, method, status: String(status) };
      found = { labels, count: 0, sum: 0, buckets: new Float64Array(LATENCY_BUCKETS.length) };
      ofRoute.set(id, found);
    }
    found.count++;
    found.sum += seconds;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]) bucket++;
    if (bucket < LATENCY_BUCKETS.length) found.buckets[bucket]++;
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
