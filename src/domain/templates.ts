/**
 * Templates (DESIGN §6): an account may use the built-in templates (no account) and its own, and no other account's;
 * a template it may not use is answered as one that does not exist. It creates, replaces and deletes its own (the
 * HTTP routes and `content-service templates`, one set of rules); the built-in ones change only by a migration.
 * Tests: test/routes/templates.test.ts, test/routes/templates.own.test.ts, test/cli/templates.test.ts.
 */
import type { Store } from "../db/store.js";
import type { SectionRole, TemplateFormat, TemplateRow, TemplateSection, TemplateTone } from "../db/templates.js";
import { iso } from "./clock.js";
import { ApiError, invalidInput } from "./errors.js";

/**
 * The most templates of its own an account may have: each is small (its fields are bounded by the request schema),
 * and their number bounds what they store, which the storage quota does not count.
 */
export const OWN_TEMPLATE_LIMIT = 100;

/** A section as a request gives it: its key, heading and instruction may be left out. */
export interface SectionInput {
  key?: string;
  heading?: string | null;
  role: SectionRole;
  words: number;
  instruction?: string;
}

/** An account's own template as a request or the command line gives it, before the defaults of templateRecord. */
export interface TemplateInput {
  name: string;
  category?: string;
  description?: string;
  format?: TemplateFormat;
  sections: SectionInput[];
  target_words?: number;
  tone?: TemplateTone;
}

/** What a template sent without them is: an article in a professional tone, in the category "custom". */
export const TEMPLATE_DEFAULTS = {
  category: "custom",
  description: "",
  format: "article",
  tone: "professional",
} as const;

/** The template of an id if the account may use it: a built-in one or its own. */
export function usableTemplate(
  store: Pick<Store, "templates">,
  accountId: number,
  id: number,
): TemplateRow | undefined {
  const t = store.templates.byId(id);
  return t && (t.account_id === null || t.account_id === accountId) ? t : undefined;
}

/** A template the account may use, read by its id (GET /templates/{id}): 404 template_not_found otherwise. */
export function findTemplate(store: Pick<Store, "templates">, accountId: number, id: number): TemplateRow {
  const t = usableTemplate(store, accountId, id);
  if (!t) throw new ApiError("template_not_found", `No template ${id}.`, { template_id: id });
  return t;
}

/**
 * A template a request names to work from (a draft's or a generation's template_id): 404 template_not_found with
 * the id in missing_ids, as for the other records a generation names, when the account may not use it.
 */
export function requireTemplate(store: Pick<Store, "templates">, accountId: number, id: number): TemplateRow {
  const t = usableTemplate(store, accountId, id);
  if (!t) throw new ApiError("template_not_found", `Template not found: ${id}.`, { missing_ids: [id] });
  return t;
}

/**
 * The account's own template of an id, to change or delete: 404 template_not_found for none or another account's,
 * 409 template_built_in for a built-in one (every account sees it, so none may change it).
 */
export function ownTemplate(store: Pick<Store, "templates">, accountId: number, id: number): TemplateRow {
  const t = findTemplate(store, accountId, id);
  if (t.account_id === null)
    throw new ApiError(
      "template_built_in",
      `Template ${id} is built in: it cannot be changed or deleted. Create a template of your own from its fields.`,
      { template_id: id },
    );
  return t;
}

/** The sections to store: keys left out made from the role (`point`, `point_2`, …), every key unique (400 otherwise). */
function sectionsOf(input: SectionInput[]): TemplateSection[] {
  const given = new Set(input.flatMap((s) => (s.key === undefined ? [] : [s.key])));
  const taken = new Set<string>();
  return input.map((s, i) => {
    let key = s.key;
    if (key === undefined) {
      key = s.role;
      for (let n = 2; given.has(key) || taken.has(key); n++) key = `${s.role}_${n}`;
    }
    if (taken.has(key)) throw invalidInput(`body.sections.${i}.key`, `key "${key}" is used by an earlier section`);
    taken.add(key);
    return { key, heading: s.heading ?? null, role: s.role, words: s.words, instruction: s.instruction ?? "" };
  });
}

/** The fields to store, the defaults applied: target_words is the sections' words added up unless given. */
function templateRecord(input: TemplateInput) {
  const sections = sectionsOf(input.sections);
  return {
    name: input.name,
    category: input.category ?? TEMPLATE_DEFAULTS.category,
    description: input.description ?? TEMPLATE_DEFAULTS.description,
    format: input.format ?? TEMPLATE_DEFAULTS.format,
    sections,
    targetWords: input.target_words ?? sections.reduce((n, s) => n + s.words, 0),
    tone: input.tone ?? TEMPLATE_DEFAULTS.tone,
  };
}

/** 409 template_name_taken when another of the account's own templates has this name (case-insensitive). */
function refuseTakenName(store: Pick<Store, "templates">, accountId: number, name: string, self?: number): void {
  const holder = store.templates.ownByName(accountId, name);
  if (holder && holder.id !== self)
    throw new ApiError("template_name_taken", `Template ${holder.id} of this account is named "${holder.name}".`, {
      template_id: holder.id,
      name: holder.name,
    });
}

/**
 * Adds a template of the account's own: 409 template_name_taken for a name one of its own has, 409
 * template_limit_reached at OWN_TEMPLATE_LIMIT. The checks and the insert are one transaction, which takes the write
 * lock as it begins: two requests for one name, or for the last place, admit one.
 */
export function createTemplate(store: Store, accountId: number, input: TemplateInput, nowMs: number): TemplateRow {
  const record = templateRecord(input);
  return store.transaction(() => {
    const own = store.templates.countOwn(accountId);
    if (own >= OWN_TEMPLATE_LIMIT)
      throw new ApiError(
        "template_limit_reached",
        `This account has ${own} templates of its own, the most it may have: delete one to make room.`,
        { limit: OWN_TEMPLATE_LIMIT, account_id: accountId },
      );
    refuseTakenName(store, accountId, record.name);
    return store.templates.create({ ...record, accountId, createdAt: iso(nowMs) });
  });
}

/** Replaces every field of one of the account's own templates (ownTemplate, refuseTakenName): the template as it is. */
export function replaceTemplate(store: Store, accountId: number, id: number, input: TemplateInput): TemplateRow {
  const record = templateRecord(input);
  return store.transaction(() => {
    ownTemplate(store, accountId, id);
    refuseTakenName(store, accountId, record.name, id);
    return store.templates.update(id, record)!;
  });
}

/**
 * Deletes one of the account's own templates (ownTemplate): the template as it was. Contents made from it keep their
 * text and lose their template_id (null; sql/0004_contents.sql).
 */
export function deleteTemplate(store: Store, accountId: number, id: number): TemplateRow {
  return store.transaction(() => {
    const t = ownTemplate(store, accountId, id);
    store.templates.remove(id);
    return t;
  });
}
