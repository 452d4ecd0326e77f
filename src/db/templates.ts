/** Queries on templates: the built-in ones (seeded by sql/0002_library.sql) and each account's own. */
import type { SqlConnection } from "./connection.js";
import { positionFunction } from "./dialect.js";

/** The layouts a template can produce. */
export const TEMPLATE_FORMATS = ["article", "post", "thread", "email", "page", "release", "product"] as const;
/** One of TEMPLATE_FORMATS. */
export type TemplateFormat = (typeof TEMPLATE_FORMATS)[number];

/** The voices a template asks for. */
export const TEMPLATE_TONES = ["conversational", "professional", "persuasive", "informative", "enthusiastic"] as const;
/** One of TEMPLATE_TONES. */
export type TemplateTone = (typeof TEMPLATE_TONES)[number];

/** What a section does in the piece; the generation engine writes each section from its role. */
export const SECTION_ROLES = [
  "headline",
  "subject",
  "hook",
  "context",
  "point",
  "evidence",
  "example",
  "steps",
  "quote",
  "cta",
  "summary",
  "signoff",
] as const;
/** One of SECTION_ROLES. */
export type SectionRole = (typeof SECTION_ROLES)[number];

/** One section of a template, in the order the piece is written. */
export interface TemplateSection {
  /** Unique within the template, e.g. "hook", "point_2". */
  key: string;
  /** A fixed heading printed above the section, or null (the instruction may ask for a written one). */
  heading: string | null;
  role: SectionRole;
  /** The section's word budget; the budgets add up to about the template's target_words. */
  words: number;
  /** What the section must say and how. */
  instruction: string;
}

/** A template with its sections parsed. */
export interface TemplateRow {
  id: number;
  /** Null for a built-in template. */
  account_id: number | null;
  name: string;
  category: string;
  description: string;
  format: TemplateFormat;
  sections: TemplateSection[];
  target_words: number;
  tone: TemplateTone;
  created_at: string;
}

type StoredTemplate = Omit<TemplateRow, "sections"> & { sections: string };

/** A new account template. */
export interface NewTemplate {
  accountId: number;
  name: string;
  category: string;
  description: string;
  format: TemplateFormat;
  sections: TemplateSection[];
  targetWords: number;
  tone: TemplateTone;
  createdAt: string;
}

/** What replacing an account template changes: everything but its id, account and creation time. */
export type TemplateChanges = Omit<NewTemplate, "accountId" | "createdAt">;

/** Filters and page of a template listing. */
export interface TemplateListQuery {
  accountId: number;
  /** Exact category, case-insensitive. */
  category?: string;
  /** Text searched in name, description and category, case-insensitive. */
  q?: string;
  /** Ids after this one (0 for the first page). */
  afterId: number;
  limit: number;
}

/**
 * A text with its ASCII capitals made small, and nothing else: what SQL's lower() does to the columns on both
 * engines (SQLite's lower is ASCII-only, and so is PostgreSQL's on the schema's "C" columns), and what SQLite's
 * NOCASE compared. Done here rather than by lower(?) in the statement, which PostgreSQL would apply in the database's
 * locale to the parameter, lowering other letters too (test/db/dialect.test.ts compares the engines).
 */
const foldAscii = (text: string) => text.replace(/[A-Z]+/g, (capitals) => capitals.toLowerCase());

function parse(row: StoredTemplate): TemplateRow {
  return { ...row, sections: JSON.parse(row.sections) as TemplateSection[] };
}

/**
 * The built-in templates and the account's own in id order, by category and text (`@category` and `@q` in small
 * letters: foldAscii). Both halves come from templates_account; the filters are tested on those rows, which are the
 * built-ins and the account's own, never a workspace's contents (test/db/list-plans.test.ts). The optional
 * parameters are cast: PostgreSQL cannot tell a type from `? IS NULL`.
 */
export const templateListSql = (db: SqlConnection) => `SELECT * FROM templates
  WHERE (account_id IS NULL OR account_id = @accountId)
    AND id > @afterId
    AND (CAST(@category AS TEXT) IS NULL OR lower(category) = @category)
    AND (CAST(@q AS TEXT) IS NULL OR ${positionFunction(db)}(lower(name || ' ' || description || ' ' || category), @q) > 0)
  ORDER BY id LIMIT @limit`;

/** Prepared template statements of one connection. */
export function templateQueries(db: SqlConnection) {
  const byId = db.prepare<[number], StoredTemplate>("SELECT * FROM templates WHERE id = ?");
  const list = db.prepare<
    { accountId: number; category: string | null; q: string | null; afterId: number; limit: number },
    StoredTemplate
  >(templateListSql(db));
  const byName = db.prepare<[number, string], StoredTemplate>(
    "SELECT * FROM templates WHERE account_id = ? AND lower(name) = ? ORDER BY id LIMIT 1",
  );
  const countOwn = db.prepare<[number], { n: number }>("SELECT count(*) AS n FROM templates WHERE account_id = ?");
  const update = db.prepare(
    `UPDATE templates SET name = @name, category = @category, description = @description, format = @format,
       sections = @sections, target_words = @targetWords, tone = @tone
     WHERE id = @id AND account_id IS NOT NULL`,
  );
  const remove = db.prepare("DELETE FROM templates WHERE id = ? AND account_id IS NOT NULL");
  const insert = db
    .prepare<[Record<string, unknown>], number>(
      `INSERT INTO templates (account_id, name, category, description, format, sections, target_words, tone, created_at)
       VALUES (@accountId, @name, @category, @description, @format, @sections, @targetWords, @tone, @createdAt)
       RETURNING id`,
    )
    .pluck();
  return {
    /** Any template by id, built-in or of any account: the caller checks the account. */
    byId(id: number): TemplateRow | undefined {
      const row = byId.get(id);
      return row && parse(row);
    },
    /** The built-in templates and the account's own, in id order. */
    list(query: TemplateListQuery): TemplateRow[] {
      return list
        .all({
          accountId: query.accountId,
          category: query.category === undefined ? null : foldAscii(query.category),
          q: query.q === undefined ? null : foldAscii(query.q),
          afterId: query.afterId,
          limit: query.limit,
        })
        .map(parse);
    },
    /** The account's own template of this name (case-insensitive), if it has one; never a built-in one. */
    ownByName(accountId: number, name: string): TemplateRow | undefined {
      const row = byName.get(accountId, foldAscii(name));
      return row && parse(row);
    },
    /** How many templates of its own the account has. */
    countOwn(accountId: number): number {
      return countOwn.get(accountId)!.n;
    },
    /** Adds an account's own template. */
    create(t: NewTemplate): TemplateRow {
      const id = insert.get({ ...t, sections: JSON.stringify(t.sections) });
      return parse(byId.get(Number(id))!);
    },
    /** Replaces an account template's fields (never a built-in one's); the row as it now is, if there is one. */
    update(id: number, t: TemplateChanges): TemplateRow | undefined {
      update.run({ ...t, id, sections: JSON.stringify(t.sections) });
      const row = byId.get(id);
      return row && parse(row);
    },
    /** Deletes an account template (never a built-in one); whether there was one. */
    remove(id: number): boolean {
      return remove.run(id).changes > 0;
    },
  };
}
