/** Templates (DESIGN §6, stable, account-level): browse the built-in templates and the account's own. */
import * as v from "valibot";
import { SECTION_ROLES, TEMPLATE_FORMATS, TEMPLATE_TONES, type TemplateRow, templateView } from "../db/templates.js";
import type { Ctx } from "../http/context.js";
import { ApiError } from "../http/errors.js";
import { route } from "../http/route.js";
import { Integer, intString, PageQuery, pageOf, TextFilter, Timestamp } from "../http/schemas.js";
import { AUTH_ERRORS, decodeCursor, encodeCursor, INPUT_ERRORS, NOT_FOUND, page } from "./common.js";

const Section = v.object({
  key: v.string(),
  heading: v.pipe(v.nullable(v.string()), v.description("A fixed heading printed above the section, or null.")),
  role: v.picklist(SECTION_ROLES),
  words: v.pipe(Integer, v.description("The section's word budget.")),
  instruction: v.string(),
});

const Template = v.object({
  id: Integer,
  name: v.string(),
  category: v.string(),
  description: v.string(),
  format: v.picklist(TEMPLATE_FORMATS),
  sections: v.pipe(
    v.array(Section),
    v.description("The sections in writing order; their words add up to about target_words."),
  ),
  target_words: v.number(),
  tone: v.picklist(TEMPLATE_TONES),
  built_in: v.pipe(v.boolean(), v.description("True for the templates every account sees.")),
  created_at: Timestamp,
});

const ListQuery = v.object({
  ...PageQuery,
  category: v.optional(TextFilter(50, "Only templates of this category (case-insensitive), e.g. blog, social, email.")),
  q: v.optional(TextFilter(100, "Text searched in the name, description and category (case-insensitive).")),
});
type ListInput = v.InferOutput<typeof ListQuery>;

const TemplateParams = v.object({ id: intString(1) });

/** A template the caller's account may use: a built-in one or its own; anything else is 404. */
export function findTemplate(ctx: Ctx, id: number): TemplateRow {
  const t = ctx.services.store.templates.byId(id);
  if (!t || (t.account_id !== null && t.account_id !== ctx.principal.accountId))
    throw new ApiError("template_not_found", `No template ${id}.`, { template_id: id });
  return t;
}

export const templateRoutes = [
  route({
    method: "GET",
    path: "/api/v1/templates",
    operationId: "listTemplates",
    summary:
      "List templates, oldest first (by id: the built-in ones first): the built-in ones and the account's own, filtered by category or text",
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
    tag: "Templates",
    stability: "stable",
    access: "any",
    params: TemplateParams,
    responses: {
      200: { description: "The template.", schema: Template },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Template"),
    },
    handler(ctx: Ctx<{ id: number }>) {
      return { body: templateView(findTemplate(ctx, ctx.params.id)) };
    },
  }),
];
