/**
 * The harness's database on PostgreSQL, for the "postgres" test project (vitest.config.ts), which runs the API suites
 * on it: each test file has a database of its own (postgres-setup.ts, over one connection), and each harness a schema
 * of its own in that database, so that harnesses alive at once see only their own records, as in-memory SQLite
 * databases do. A harness's connection sets the search_path to its schema whenever the file's connection last ran
 * another harness's statement: statements are synchronous, so two never interleave.
 */
import type { SqlBody, SqlConnection, SqlStatement, SqlTransaction } from "../../src/db/connection.js";
import type { PgConnection } from "../../src/db/pg/connection.js";

/** The test file's database: its connection, shared by its harnesses, and its schemas. */
interface FileDatabase {
  db: PgConnection;
  url: string;
  /** The schema the connection's search_path names now. */
  current?: string;
  /** Schemas made so far (their names count up). */
  made: number;
  /** Schemas migrated and in no harness's use, each emptied to the migrations' state before it is taken again. */
  free: string[];
  /** Schemas taken since the test began, given back when it ends (releaseTestSchemas). */
  takenInTest: string[];
  inTest: boolean;
  /** The script that empties a schema back to the migrations' state (resetScript), once the first is migrated. */
  reset?: (schema: string) => string;
}

let fileDatabase: FileDatabase | undefined;

/** What each harness still has running in the background (graph extractions, learning jobs), awaited at the end. */
const unsettled: (() => Promise<unknown>)[] = [];

/** Registers a harness's background work, to be awaited before the file's connection closes (settleHarnesses). */
export function settleAtFileEnd(settle: () => Promise<unknown>): void {
  if (fileDatabase) unsettled.push(settle);
}

/**
 * Awaits every harness's background work (postgres-setup.ts afterAll): a graph extraction a test left queued would
 * otherwise run on the closed connection, an unhandled rejection after the file's tests passed.
 */
export async function settleHarnesses(): Promise<void> {
  await Promise.allSettled(unsettled.splice(0).map((settle) => settle()));
}

/** Set by postgres-setup.ts for the test file: harnesses then run on PostgreSQL. */
export function usePostgresForHarnesses(db: PgConnection, url: string): void {
  fileDatabase = { db, url, made: 0, free: [], takenInTest: [], inTest: false };
}

/** The test file's PostgreSQL database, when the harnesses run on it (the postgres project). */
export function postgresForHarnesses(): FileDatabase | undefined {
  return fileDatabase;
}

/** A test begins (postgres-setup.ts beforeEach): the schemas harnesses take from now on are the test's. */
export function testBegins(): void {
  if (fileDatabase) fileDatabase.inTest = true;
}

/**
 * A test ended (postgres-setup.ts afterEach, after the file's own): the schemas its harnesses took are free again.
 * Harnesses made outside a test (in a describe's body, in beforeAll) keep theirs for the whole file.
 */
export function releaseTestSchemas(): void {
  if (!fileDatabase) return;
  fileDatabase.free.push(...fileDatabase.takenInTest);
  fileDatabase.takenInTest = [];
  fileDatabase.inTest = false;
}

/**
 * A schema for a new harness and a connection into it, migrated: a free one emptied back to the migrations' state
 * (a few statements), or a new one migrated by `migrate` (some hundreds of ms of DDL, which is why schemas are reused).
 */
export function harnessSchema(file: FileDatabase, migrate: (db: SchemaConnection) => void): SchemaConnection {
  let schema = file.reset ? file.free.pop() : undefined;
  if (schema && file.reset) {
    file.db.exec(file.reset(schema));
  } else {
    schema = `harness_${++file.made}`;
    file.db.exec(`CREATE SCHEMA ${schema}`);
    migrate(new SchemaConnection(file, schema));
    file.reset ??= resetScript(file, schema);
  }
  if (file.inTest) file.takenInTest.push(schema);
  return new SchemaConnection(file, schema);
}

/**
 * The script that empties a schema to the state its migrations left `pristine` in (the rows they seeded, the
 * identity sequences where they left them), with triggers off (session_replication_role = replica: a delete must
 * not count or queue anything), in one transaction. `pristine` is migrated and untouched when this is called.
 */
function resetScript(file: FileDatabase, pristine: string): (schema: string) => string {
  const snapshot = `${pristine}_pristine`;
  file.db.exec(`CREATE SCHEMA ${snapshot}`);
  const tables = file.db
    .prepare<[string], { table: string; columns: string }>(
      `SELECT c.table_name AS table, string_agg(quote_ident(c.column_name), ', ' ORDER BY c.ordinal_position) AS columns
         FROM information_schema.columns AS c JOIN information_schema.tables AS t
           ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
        WHERE c.table_schema = ? AND c.is_generated = 'NEVER' GROUP BY c.table_name`,
    )
    .all(pristine);
  const sequences = file.db
    .prepare<[string], { name: string }>(
      "SELECT sequence_name AS name FROM information_schema.sequences WHERE sequence_schema = ?",
    )
    .all(pristine);
  // The seeded rows and the sequences' positions, kept apart from the harness that will use `pristine`.
  for (const t of tables)
    file.db.exec(`CREATE TABLE ${snapshot}.${t.table} AS SELECT ${t.columns} FROM ${pristine}.${t.table}`);
  const positions = sequences.map((q) => ({
    name: q.name,
    ...(file.db.prepare(`SELECT last_value, is_called FROM ${pristine}.${q.name}`).get() as {
      last_value: number;
      is_called: number;
    }),
  }));
  return (schema) =>
    [
      "BEGIN",
      "SET LOCAL session_replication_role = replica",
      ...tables.map((t) => `DELETE FROM ${schema}.${t.table}`),
      ...tables.map((t) => `INSERT INTO ${schema}.${t.table} (${t.columns}) SELECT * FROM ${snapshot}.${t.table}`),
      ...positions.map(
        (q) => `SELECT setval('${schema}.${q.name}', ${q.last_value}, ${q.is_called ? "true" : "false"})`,
      ),
      "COMMIT",
    ].join(";\n");
}

/** A statement of one harness's schema: it enters the schema before it runs. */
class SchemaStatement<P extends unknown[], R> implements SqlStatement<P, R> {
  constructor(
    private readonly inner: SqlStatement<P, R>,
    private readonly enter: () => void,
  ) {}

  get(...params: P) {
    this.enter();
    return this.inner.get(...params);
  }

  all(...params: P) {
    this.enter();
    return this.inner.all(...params);
  }

  run(...params: P) {
    this.enter();
    return this.inner.run(...params);
  }

  iterate(...params: P) {
    this.enter();
    return this.inner.iterate(...params);
  }

  pluck(toggle?: boolean): this {
    this.inner.pluck(toggle);
    return this;
  }
}

/** A connection to one harness's schema over the file's connection. */
export class SchemaConnection implements SqlConnection {
  readonly dialect = "postgres" as const;
  readonly name: string;

  constructor(
    private readonly file: FileDatabase,
    private readonly schema: string,
  ) {
    this.name = `${file.db.name} (schema ${schema})`;
  }

  get inTransaction(): boolean {
    return this.file.db.inTransaction;
  }

  prepare<P extends unknown[] | object = unknown[], R = unknown>(
    sql: string,
  ): P extends unknown[] ? SqlStatement<P, R> : SqlStatement<[P], R> {
    const inner = this.file.db.prepare<unknown[], R>(sql);
    return new SchemaStatement(inner, () => this.enter()) as never;
  }

  transaction<F extends SqlBody>(fn: F): SqlTransaction<F> {
    const inner = this.file.db.transaction(fn);
    const entered =
      <V extends (...args: never[]) => unknown>(variant: V) =>
      (...args: Parameters<V>) => {
        this.enter();
        return variant(...args);
      };
    return Object.assign(entered(inner), {
      deferred: entered(inner.deferred),
      immediate: entered(inner.immediate),
    }) as unknown as SqlTransaction<F>;
  }

  exec(script: string): this {
    this.enter();
    this.file.db.exec(script);
    return this;
  }

  /** The file's connection stays open for its other harnesses; postgres-setup.ts closes it. */
  close(): void {}

  private enter(): void {
    if (this.file.current === this.schema) return;
    this.file.db.exec(`SET search_path TO ${this.schema}`);
    this.file.current = this.schema;
  }
}
