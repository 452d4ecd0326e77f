/** What a handler receives: the caller, the resolved workspace, validated input and the services. */
import type { AccountRow } from "../db/accounts.js";
import type { ApiKeyRow, Scope } from "../db/apikeys.js";
import type { Durability } from "../db/durability.js";
import type { RowLookups } from "../db/row-cache.js";
import type { Store } from "../db/store.js";
import type { DbLocation } from "../db/thread-store.js";
import type { Role } from "../db/users.js";
import type { WorkspaceRow } from "../db/workspaces.js";
import type { Clock } from "../domain/clock.js";
import type { DeviceAuthorizations } from "../domain/device-auth.js";
import type { Engine } from "../domain/generation/engines.js";
import type { LlmConfig } from "../domain/generation/llm.js";
import type { GraphService } from "../domain/graph.js";
import type { GraphReadCache } from "../domain/graph-reads.js";
import type { LearningRunner } from "../domain/learning/runner.js";
import type { SessionClaims, SessionTokens } from "../domain/sessions.js";
import type { UsageCounter } from "../domain/usage.js";
import type { StoreWriter } from "../domain/writer.js";
import type { Logger } from "../runtime/log.js";
import type { WorkerPool } from "../workers/pool.js";
import type { Incoming } from "./exchange.js";
import type { IdempotencyKeys } from "./idempotency.js";
import type { KeyUsageTracker } from "./key-usage.js";
import type { ServerMetrics } from "./metrics.js";
import type { Limiter } from "./ratelimit.js";
import type { StorageWatch } from "./storage-watch.js";
import type { WriteTurns } from "./turns.js";

/** The authenticated caller. */
export type Principal =
  | {
      kind: "key";
      accountId: number;
      scopes: Scope[];
      boundWorkspaceId: string | null;
      key: ApiKeyRow;
    }
  | {
      kind: "session";
      accountId: number;
      scopes: Scope[];
      boundWorkspaceId: null;
      userId: number;
      role: Role;
      claims: SessionClaims;
    };

/** Server settings that routes read. */
export interface ServerConfig {
  publicUrl: string;
  stagingUrl: string;
  /** The time zone of "today" for planning dates; undefined: this machine's (resolved on first use). */
  timezone?: string;
  /** The origins a browser front end may call from (`serve --cors-origin`, http/cors.ts); none by default. */
  corsOrigins?: readonly string[];
  /**
   * The proxies whose X-Forwarded-For is read for the client's address (`serve --trust-proxy`, http/client-address.ts):
   * addresses, CIDR ranges, `loopback`; none by default.
   */
  trustProxy?: readonly string[];
  /** The bearer token GET /metrics takes from any client (`serve --metrics-token`); without it, loopback only. */
  metricsToken?: string;
  /** The on-prem model server, when `serve --llm-base-url --llm-model` configured one. */
  llm?: LlmConfig;
  /** The OpenAI-compatible images endpoint, when `serve --image-model` configured one. */
  imageModel?: LlmConfig;
}

/** The long-lived services of a running server (replaced by fakes in tests where useful). */
export interface Services {
  store: Store;
  /** The API keys, accounts and workspaces requests authenticate with, kept while the database is unchanged. */
  rows: RowLookups;
  /** Awaited before a write is answered: the write is then on disk (db/durability.ts). */
  durability: Durability;
  /** The writes' turns on the HTTP thread (turns.ts); the checkpointer holds them for a moment now and then. */
  turns: WriteTurns;
  /** Runs finalizations' and background writes off the HTTP thread (domain/writer.ts). */
  writer: StoreWriter;
  clock: Clock;
  pool: WorkerPool;
  /** Password hashing and checks, apart from `pool`'s long tasks so that a sign-in never waits behind them. */
  passwords: WorkerPool;
  limiter: Limiter;
  sessions: SessionTokens;
  deviceAuth: DeviceAuthorizations;
  learning: LearningRunner;
  /** Keeps each workspace's knowledge graph caught up in the background. */
  graph: GraphService;
  /** Graph reads' answers while their graph is unchanged (domain/graph-reads.ts). */
  graphReads: GraphReadCache;
  /** The generation engines, the default (builtin) first. */
  engines: Engine[];
  keyUsage: KeyUsageTracker;
  /** Per-day usage counters, counted in memory and flushed in batches. */
  usage: UsageCounter;
  /** Stored responses and requests in flight of POSTs with an Idempotency-Key. */
  idempotency: IdempotencyKeys;
  logger: Logger;
  /** Whether a write found the disk full, until the file system has room again (/readyz). */
  storage: StorageWatch;
  config: ServerConfig;
  /** The Prometheus metrics GET /metrics serves (http/metrics.ts); undefined where no one built them. */
  metrics?: ServerMetrics;
  /** The database for the pool's threads to open (a server's); undefined for an in-memory one (tests). */
  location?: DbLocation;
}

/** One request as a handler sees it; P, Q and B are the outputs of the route's schemas. */
// biome-ignore lint/suspicious/noExplicitAny: defaults let helpers take any route's context.
export interface Ctx<P = any, Q = any, B = any> {
  request: Incoming;
  traceId: string;
  /**
   * The client's address (http/client-address.ts): the connection's peer, or through a trusted proxy the address it
   * forwarded; undefined in process (MCP tool calls).
   */
  clientAddress?: string;
  services: Services;
  /** Undefined on public routes. */
  principal: Principal;
  account: AccountRow;
  /** The workspace the request operates on (routes with `workspace: "required"`). */
  workspace: WorkspaceRow;
  /** Checks that a record of this account, reached by id, lies in a workspace the caller may use. */
  checkRecordWorkspace(workspaceId: string): void;
  params: P;
  query: Q;
  body: B;
}
