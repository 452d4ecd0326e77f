/**
 * SQLite's parameters in PostgreSQL's terms. The query modules write `?` (positional) and `@name`, `:name` or `$name`
 * (named, taken from one object whose keys are the names without their prefix), as better-sqlite3 binds them;
 * PostgreSQL numbers its parameters `$1..$n`. translate() rewrites the text once per SQL text, leaving alone what
 * only looks like a parameter: string literals, quoted identifiers, dollar-quoted strings, comments and `::` casts.
 * bind() then orders the values as the numbers say, with better-sqlite3's checks and messages.
 * test/db/pg/parameters.test.ts holds both.
 */

/** What one `$n` takes its value from: the next positional value, or the named one. */
export type Slot = { kind: "positional" } | { kind: "named"; name: string };

/** A statement's text with `$1..$n`, and what each number takes. */
export interface TranslatedSql {
  text: string;
  /** slots[n - 1] is what `$n` takes. */
  slots: Slot[];
}

/** How many translations are kept; past it the cache starts over (texts built at run time must not grow it forever). */
const CACHE_LIMIT = 2_000;
const cache = new Map<string, TranslatedSql>();

/** The PostgreSQL form of a statement written with SQLite's parameters, computed once per text. */
export function translate(sql: string): TranslatedSql {
  const known = cache.get(sql);
  if (known) return known;
  if (cache.size >= CACHE_LIMIT) cache.clear();
  const translated = scan(sql);
  cache.set(sql, translated);
  return translated;
}

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const DOLLAR_TAG = /\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/y;

/** The index just past the end of a token that starts at `i` and holds no parameter, or `i` when none starts there. */
function skipInert(sql: string, i: number): number {
  const c = sql[i];
  const next = sql[i + 1];
  if (c === "'") return closeQuoted(sql, i, "'", /[Ee]/.test(sql[i - 1] ?? "") && !/\w/.test(sql[i - 2] ?? ""));
  if (c === '"') return closeQuoted(sql, i, '"', false);
  if (c === "-" && next === "-") {
    const end = sql.indexOf("\n", i);
    return end < 0 ? sql.length : end + 1;
  }
  if (c === "/" && next === "*") return closeBlockComment(sql, i);
  if (c === ":" && next === ":") return i + 2;
  if (c === "$") {
    DOLLAR_TAG.lastIndex = i;
    const tag = DOLLAR_TAG.exec(sql)?.[0];
    if (tag) {
      const end = sql.indexOf(tag, i + tag.length);
      return end < 0 ? sql.length : end + tag.length;
    }
  }
  return i;
}

/** Past the quote closing the one at `start` (a doubled quote is one character; backslashes escape in E'…'). */
function closeQuoted(sql: string, start: number, quote: string, backslashes: boolean): number {
  for (let i = start + 1; i < sql.length; i++) {
    if (backslashes && sql[i] === "\\") i++;
    else if (sql[i] === quote) {
      if (sql[i + 1] !== quote) return i + 1;
      i++;
    }
  }
  return sql.length;
}

/** Past the end of the block comment at `start`; PostgreSQL's block comments nest. */
function closeBlockComment(sql: string, start: number): number {
  let depth = 0;
  for (let i = start; i < sql.length - 1; i++) {
    if (sql[i] === "/" && sql[i + 1] === "*") {
      depth++;
      i++;
    } else if (sql[i] === "*" && sql[i + 1] === "/") {
      depth--;
      i++;
      if (depth === 0) return i + 1;
    }
  }
  return sql.length;
}

function scan(sql: string): TranslatedSql {
  const slots: Slot[] = [];
  const numbers = new Map<string, number>();
  let text = "";
  let i = 0;
  while (i < sql.length) {
    const inert = skipInert(sql, i);
    if (inert > i) {
      text += sql.slice(i, inert);
      i = inert;
      continue;
    }
    const c = sql[i]!;
    if (c === "?") {
      if (/\d/.test(sql[i + 1] ?? "")) throw new TypeError(`numbered parameters (?NNN) are not supported: ${sql}`);
      slots.push({ kind: "positional" });
      text += `$${slots.length}`;
      i++;
      continue;
    }
    if (c === "$" && /\d/.test(sql[i + 1] ?? ""))
      throw new TypeError(`write parameters as ? or @name, not PostgreSQL's $n: ${sql}`);
    NAME.lastIndex = i + 1;
    const name = (c === "@" || c === ":" || c === "$") && NAME.exec(sql)?.[0];
    if (!name) {
      text += c;
      i++;
      continue;
    }
    let n = numbers.get(name);
    if (n === undefined) {
      slots.push({ kind: "named", name });
      n = slots.length;
      numbers.set(name, n);
    }
    text += `$${n}`;
    i += 1 + name.length;
  }
  return { text, slots };
}

/** Whether better-sqlite3 would take the argument as the object of named parameters (a plain object). */
function isNamedBag(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The values for `$1..$n` from a statement's arguments, as better-sqlite3 reads them: values and arrays of values
 * fill the `?` in order, one plain object gives the named ones. Too few or too many values, a missing name, and a
 * value neither a number, string, bigint, buffer nor null are refused with better-sqlite3's messages, so that the
 * query modules fail alike on both engines; undefined binds as NULL, as there.
 */
export function bind(sql: TranslatedSql, args: unknown[]): unknown[] {
  const positional: unknown[] = [];
  let named: Record<string, unknown> | undefined;
  for (const arg of args) {
    if (Array.isArray(arg)) positional.push(...arg);
    else if (!isNamedBag(arg)) positional.push(arg);
    else if (named) throw new TypeError("You cannot specify named parameters in two different objects");
    else named = arg;
  }
  let next = 0;
  const values = sql.slots.map((slot) => {
    if (slot.kind === "positional") {
      if (next >= positional.length) throw new RangeError("Too few parameter values were provided");
      return bindable(positional[next++]);
    }
    if (!named || !(slot.name in named)) throw new RangeError(`Missing named parameter "${slot.name}"`);
    return bindable(named[slot.name]);
  });
  if (next < positional.length) throw new RangeError("Too many parameter values were provided");
  return values;
}

/** One value as pg sends it: bigints as their digits, undefined as NULL; booleans, dates and objects refused. */
function bindable(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === "number" || typeof value === "string") return value;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Uint8Array) return value;
  throw new TypeError("SQLite3 can only bind numbers, strings, bigints, buffers, and null");
}
