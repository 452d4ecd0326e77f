/** Templates (DESIGN §6, stable, account-level): browse the built-in templates and the account's own. */
import * as v from "valibot";
import { SECTION_ROLES, TEMPLATE_FORMATS, TEMPLATE_TONES } from "../db/templates.js";
import { findTemplate } from "../domain/templates.js";
import { templateView } from "../domain/views/templates.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import { described, Integer, intString, named, PageQuery, pageOf, TextFilter, Timestamp } from "../http/schemas.js";
import { AUTH_ERRORS, decodeCursor, encodeCursor, INPUT_ERRORS, NOT_FOUND, page } from "./common.js";

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

/** The template routes: list and read templates. */
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
];
