/**
 * Templates (DESIGN §6, account-level): browse the built-in templates and the account's own (stable, spec §4.10), and
 * create, replace and delete the account's own (beta, additive).
 */
import * as v from "valibot";
import { SECTION_ROLES, TEMPLATE_FORMATS, TEMPLATE_TONES } from "../db/templates.js";
import {
  createTemplate,
  deleteTemplate,
  findTemplate,
  OWN_TEMPLATE_LIMIT,
  replaceTemplate,
  TEMPLATE_DEFAULTS,
} from "../domain/templates.js";
import { templateView } from "../domain/views/templates.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import {
  described,
  Integer,
  intString,
  maxChars,
  minChars,
  named,
  PageQuery,
  pageOf,
  TextFilter,
  Timestamp,
} from "../http/schemas.js";
import { AUTH_ERRORS, CONFLICT, decodeCursor, encodeCursor, INPUT_ERRORS, NOT_FOUND, page } from "./common.js";

const Section = v.object({
  key: described(v.string(), "The section's name within the template."),
  heading: v.pipe(v.nullable(v.string()), v.description("A fixed heading printed above the section, or null.")),
  role: described(v.picklist(SECTION_ROLES), "What the section does in the piece; the engine writes it from its role."),
  words: v.pipe(Integer, v.description("The section's word budget.")),
  instruction: described(v.string(), "What the section is to say, in words for the engine."),
});

/** A template: the sections, length and tone a generation follows (named Template in the description). */
const Template = named(
  "Template",
  v.object({
    id: described(Integer, "The template's id, to send as template_id to POST /generate."),
    name: described(v.string(), "The template's name."),
    category: described(v.string(), "Its category (blog, social, email, …), a filter of GET /templates."),
    description: described(v.string(), "What the template is for."),
    format: described(v.picklist(TEMPLATE_FORMATS), "The layout it produces."),
    sections: v.pipe(
      v.array(Section),
      v.description("The sections in writing order; their words add up to about target_words."),
    ),
    target_words: described(v.number(), "About how many words a piece from it has."),
    tone: described(v.picklist(TEMPLATE_TONES), "The voice it asks for."),
    built_in: v.pipe(v.boolean(), v.description("True for the templates every account sees.")),
    created_at: described(Timestamp, "When it was added."),
  }),
);

const TEMPLATE_EXAMPLE = {
  id: 1,
  name: "Blog post",
  category: "blog",
  description: "A blog article: a headline, a hook, three points and a call to action.",
  format: "article",
  sections: [
    { key: "headline", heading: null, role: "headline", words: 12, instruction: "A headline that names the benefit." },
    { key: "hook", heading: null, role: "hook", words: 60, instruction: "Open with the reader's problem." },
  ],
  target_words: 800,
  tone: "informative",
  built_in: true,
  created_at: "2026-01-01T00:00:00.000Z",
};

const ListQuery = v.object({
  ...PageQuery,
  category: v.optional(TextFilter(50, "Only templates of this category (case-insensitive), e.g. blog, social, email.")),
  q: v.optional(TextFilter(100, "Text searched in the name, description and category (case-insensitive).")),
});
type ListInput = v.InferOutput<typeof ListQuery>;

const TemplateParams = v.object({ id: intString(1, Number.MAX_SAFE_INTEGER, "The template's id (template_id).") });

/** Limits of an account's own template, in characters, words and sections. */
export const TEMPLATE_LIMITS = {
  nameChars: 100,
  categoryChars: 50,
  descriptionChars: 1_000,
  keyChars: 50,
  headingChars: 200,
  instructionChars: 2_000,
  sections: 20,
  sectionWords: 5_000,
  targetWords: 20_000,
} as const;

const trimmed = (min: number, max: number) => v.pipe(v.string(), v.trim(), minChars(min), maxChars(max));
const words = (max: number) => v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(max));
const L = TEMPLATE_LIMITS;

const SectionBody = v.object({
  key: v.optional(
    described(
      trimmed(1, L.keyChars),
      "The section's name, unique within the template; left out, its role (point, point_2, … when repeated).",
    ),
  ),
  heading: v.optional(
    described(v.nullable(trimmed(1, L.headingChars)), "A fixed heading printed above the section; default: none."),
  ),
  role: described(v.picklist(SECTION_ROLES), "What the section does in the piece; the engine writes it from its role."),
  words: described(words(L.sectionWords), `The section's word budget, 1 to ${L.sectionWords.toLocaleString("en")}.`),
  instruction: v.optional(
    described(trimmed(0, L.instructionChars), "What the section is to say, in words for the engine; default: none."),
  ),
});

/** An account's own template as POST and PUT /templates take it: every field, those left out their defaults. */
export const TemplateBody = v.object({
  name: described(
    trimmed(1, L.nameChars),
    "The template's name, 1 to 100 characters, unique (case-insensitive) among the account's own.",
  ),
  category: v.optional(
    described(
      trimmed(1, L.categoryChars),
      `Its category, a filter of GET /templates; default: ${TEMPLATE_DEFAULTS.category}.`,
    ),
  ),
  description: v.optional(described(trimmed(0, L.descriptionChars), "What the template is for; default: empty.")),
  format: v.optional(
    described(v.picklist(TEMPLATE_FORMATS), `The layout it produces; default: ${TEMPLATE_DEFAULTS.format}.`),
  ),
  sections: described(
    v.pipe(
      v.array(SectionBody),
      v.minLength(1, "at least one section"),
      v.maxLength(L.sections, "at most 20 sections"),
    ),
    "The sections in writing order, 1 to 20.",
  ),
  target_words: v.optional(
    described(words(L.targetWords), "About how many words a piece from it has; default: the sections' words added up."),
  ),
  tone: v.optional(described(v.picklist(TEMPLATE_TONES), `The voice it asks for; default: ${TEMPLATE_DEFAULTS.tone}.`)),
});
type TemplateBodyInput = v.InferOutput<typeof TemplateBody>;

const Deleted = v.object({
  id: described(Integer, "The deleted template's id."),
  deleted: described(v.literal(true), "Always true."),
});

const OWN_EXAMPLE = {
  name: "Case study",
  category: "sales",
  description: "A customer's problem, what we did and the result.",
  format: "article",
  sections: [
    { role: "headline", words: 12 },
    { role: "context", words: 120, heading: "The problem", instruction: "The customer's situation before." },
    { role: "evidence", words: 200, heading: "What changed", instruction: "What we did, with figures." },
    { role: "cta", words: 40 },
  ],
  tone: "professional",
};

const OWN_TEMPLATE_ERRORS = {
  ...AUTH_ERRORS,
  ...INPUT_ERRORS,
  ...NOT_FOUND("Template (or one of another account)"),
  ...CONFLICT(
    "A built-in template, which cannot change (template_built_in); a name another of the account's own templates " +
      "has (template_name_taken).",
  ),
};

const own = { tag: "Templates", stability: "beta", access: "any" } as const;

/** The template routes: list and read templates; create, replace and delete the account's own. */
export const templateRoutes = [
  route({
    method: "GET",
    path: "/api/v1/templates",
    operationId: "listTemplates",
    summary:
      "List templates, oldest first (by id: the built-in ones first): the built-in ones and the account's own, filtered by category or text",
    description:
      "Lists the templates a generation can follow: the ten built-in ones every account sees, then the account's " +
      "own, in id order, a page at a time; filter by category or by text in the name, description and category. " +
      "Pick one and send its id as template_id to POST /generate. Changes nothing.",
    tag: "Templates",
    stability: "stable",
    access: "any",
    query: ListQuery,
    responses: {
      200: { description: "A page of templates in id order.", schema: pageOf(Template) },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
    handler(ctx: Ctx<Record<string, string>, ListInput>) {
      const rows = ctx.services.store.templates.list({
        accountId: ctx.principal.accountId,
        category: ctx.query.category,
        q: ctx.query.q,
        afterId: decodeCursor<number>(ctx.query.cursor, "number") ?? 0,
        limit: ctx.query.limit + 1,
      });
      const p = page(rows, ctx.query.limit, (t) => encodeCursor(t.id));
      return { body: { ...p, data: p.data.map(templateView) } };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/templates/{id}",
    operationId: "getTemplate",
    summary: "Read one template with its sections",
    description:
      "Reads one template with its sections, word budgets and tone: what a generation from it will contain. " +
      "Changes nothing. A template of another account is 404.",
    tag: "Templates",
    stability: "stable",
    access: "any",
    params: TemplateParams,
    responses: {
      200: { description: "The template.", schema: Template, example: TEMPLATE_EXAMPLE },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Template"),
    },
    handler(ctx: Ctx<{ id: number }>) {
      return { body: templateView(findTemplate(ctx.services.store, ctx.principal.accountId, ctx.params.id)) };
    },
  }),
  route({
    ...own,
    method: "POST",
    path: "/api/v1/templates",
    operationId: "createTemplate",
    created: (body: { id: number }) => `/api/v1/templates/${body.id}`,
    summary: "Create a template of the account's own: its sections, target words and tone",
    description:
      "Adds a template every user and key of the account can generate from (send its id as template_id to POST " +
      "/generate); no other account sees it. Only name and sections are needed: a section's key defaults to its " +
      `role, target_words to the sections' words added up. An account has at most ${OWN_TEMPLATE_LIMIT} templates ` +
      "of its own (409 template_limit_reached); a name one of them has is 409 template_name_taken.",
    bodyExamples: {
      full: OWN_EXAMPLE,
      minimal: {
        name: "Short update",
        sections: [
          { role: "hook", words: 40 },
          { role: "point", words: 120 },
        ],
      },
    },
    body: TemplateBody,
    responses: {
      201: { description: "The new template.", schema: Template, example: { ...TEMPLATE_EXAMPLE, built_in: false } },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...CONFLICT(
        "A name another of the account's own templates has (template_name_taken), or the account has the most " +
          "templates it may have (template_limit_reached).",
      ),
    },
    handler(ctx: Ctx<Record<string, string>, unknown, TemplateBodyInput>) {
      const t = createTemplate(ctx.services.store, ctx.principal.accountId, ctx.body, ctx.services.clock.now());
      return { status: 201, body: templateView(t) };
    },
  }),
  route({
    ...own,
    method: "PUT",
    path: "/api/v1/templates/{id}",
    operationId: "updateTemplate",
    summary: "Replace a template of the account's own (every field; those left out take their defaults)",
    description:
      "Replaces every field of one of the account's own templates, as POST /templates takes them; its id and " +
      "created_at stay. Later generations from it follow the new fields; contents already written are not touched. " +
      "A built-in template cannot be changed (409 template_built_in); one of another account is 404.",
    params: TemplateParams,
    bodyExamples: { replace: OWN_EXAMPLE },
    body: TemplateBody,
    responses: {
      200: {
        description: "The template as it now is.",
        schema: Template,
        example: { ...TEMPLATE_EXAMPLE, built_in: false },
      },
      ...OWN_TEMPLATE_ERRORS,
    },
    handler(ctx: Ctx<{ id: number }, unknown, TemplateBodyInput>) {
      return {
        body: templateView(replaceTemplate(ctx.services.store, ctx.principal.accountId, ctx.params.id, ctx.body)),
      };
    },
  }),
  route({
    ...own,
    method: "DELETE",
    path: "/api/v1/templates/{id}",
    operationId: "deleteTemplate",
    summary: "Delete a template of the account's own",
    description:
      "Deletes one of the account's own templates. Contents generated from it keep their text, and their " +
      "template_id becomes null. A built-in template cannot be deleted (409 template_built_in); one of another " +
      "account is 404.",
    params: TemplateParams,
    responses: {
      200: { description: "Deleted.", schema: Deleted },
      ...OWN_TEMPLATE_ERRORS,
    },
    handler(ctx: Ctx<{ id: number }>) {
      const t = deleteTemplate(ctx.services.store, ctx.principal.accountId, ctx.params.id);
      return { body: { id: t.id, deleted: true } };
    },
  }),
];
