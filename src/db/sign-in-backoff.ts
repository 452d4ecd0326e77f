/** Queries on failed sign-ins per email and per client address (the rules: domain/sign-in-backoff.ts). */
import type { SqlConnection } from "./connection.js";

/** The failures of one subject (`email:…`, `addr:…`, or `email:… addr:…`); times in milliseconds since the epoch. */
export interface BackoffRow {
  subject: string;
  failures: number;
  last_failure_ms: number;
  blocked_until_ms: number;
}

/** Prepared sign-in backoff statements of one connection. */
export function signInBackoffQueries(db: SqlConnection) {
  const get = db.prepare<[string], BackoffRow>("SELECT * FROM sign_in_backoff WHERE subject = ?");
  const put = db.prepare<BackoffRow>(
    `INSERT INTO sign_in_backoff (subject, failures, last_failure_ms, blocked_until_ms)
     VALUES (@subject, @failures, @last_failure_ms, @blocked_until_ms)
     ON CONFLICT(subject) DO UPDATE SET failures = excluded.failures, last_failure_ms = excluded.last_failure_ms,
       blocked_until_ms = excluded.blocked_until_ms`,
  );
  const clear = db.prepare<[string]>("DELETE FROM sign_in_backoff WHERE subject = ?");
  const clearStartingWith = db.prepare<[string, string]>(
    // Cast: PostgreSQL's length() takes several types and cannot tell which a parameter is.
    "DELETE FROM sign_in_backoff WHERE substr(subject, 1, length(CAST(? AS TEXT))) = ?",
  );
  const all = db.prepare<[], BackoffRow>("SELECT * FROM sign_in_backoff ORDER BY subject");
  const purge = db.prepare<[number]>("DELETE FROM sign_in_backoff WHERE last_failure_ms < ?");
  return {
    get: (subject: string) => get.get(subject),
    put: (row: BackoffRow) => {
      put.run(row);
    },
    /** Forgets one subject's failures; whether it had any. */
    clear: (subject: string) => clear.run(subject).changes > 0,
    /** Forgets the failures of every subject that starts with `prefix`; whether there were any. */
    clearStartingWith: (prefix: string) => clearStartingWith.run(prefix, prefix).changes > 0,
    list: () => all.all(),
    /** Forgets the subjects whose last failure is older than `beforeMs`. */
    purge: (beforeMs: number) => purge.run(beforeMs).changes,
  };
}
