/** GET /models (the engines this server offers) and POST /thesis (stable). */
import * as v from "valibot";
import { gatherSources } from "../domain/contents.js";
import { pickEngine } from "../domain/generation/engines.js";
import { llmThesis } from "../domain/generation/thesis.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import { Integer, maxChars, minChars, offeredModel, PageQuery, pageOf, WorkspaceIdField } from "../http/schemas.js";
import { AUTH_ERRORS, INPUT_ERRORS, NOT_FOUND, pageList, TASK_ERRORS, UPSTREAM_ERRORS } from "./common.js";

const Model = v.object({
  id: v.string(),
  kind: v.picklist(["builtin", "openai-compatible"]),
  description: v.string(),
  default: v.boolean(),
  streaming: v.boolean(),
});

const Id = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER));

const ThesisBody = v.object({
  user_direction: v.pipe(v.string(), v.trim(), minChars(1), maxChars(5000)),
  reference_material_ids: v.optional(v.pipe(v.array(Id), v.maxLength(50))),
  memory_ids: v.optional(v.pipe(v.array(Id), v.maxLength(50))),
  max_points: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10)), 3),
  model: v.optional(v.pipe(v.string(), minChars(1), maxChars(200), offeredModel("text"))),
  workspace_id: v.optional(WorkspaceIdField),
});

const Point = v.object({
  text: v.string(),
  reference_material_id: v.nullable(Integer),
  passage: v.nullable(v.string()),
});

export const modelRoutes = [
  route({
    method: "GET",
    path: "/api/v1/models",
    operationId: "listModels",
    summary:
      "The generation engines this server offers, the default first: builtin, then the on-prem model when configured",
    tag: "Generation",
    stability: "beta",
    access: "any",
    query: v.object(PageQuery),
    responses: { 200: { description: "The engines.", schema: pageOf(Model) }, ...AUTH_ERRORS, ...INPUT_ERRORS },
    handler(ctx: Ctx<unknown, { limit: number; cursor?: string }>) {
      const models = ctx.services.engines.map((e, i) => ({
        id: e.id,
        kind: e.kind,
        description: e.description,
        default: i === 0,
        streaming: true,
        position: i,
      }));
      // In offer order: the default (builtin) first.
      const p = pageList(models, ctx.query, (m) => String(m.position).padStart(4, "0"));
      return { body: { ...p, data: p.data.map(({ position: _, ...m }) => m) } };
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/thesis",
    operationId: "thesis",
    summary: "A thesis statement, supporting points each tied to a reference passage, and counterpoints",
    tag: "Generation",
    stability: "stable",
    access: "any",
    workspace: "required",
    body: ThesisBody,
    responses: {
      200: {
        description: "The thesis.",
        schema: v.object({
          thesis: v.string(),
          supporting_points: v.array(Point),
          counterpoints: v.array(v.string()),
          model: v.string(),
        }),
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Memory or reference material"),
      ...TASK_ERRORS,
      ...UPSTREAM_ERRORS,
    },
    async handler(ctx: Ctx<unknown, unknown, v.InferOutput<typeof ThesisBody>>) {
      // Resolved by the pipeline before the body is validated (DESIGN §3's order of checks).
      const workspace = ctx.workspace;
      const engine = pickEngine(ctx.services.engines, ctx.body.model);
      // Memories and references are gathered and checked exactly as generate does.
      const sources = gatherSources(ctx.services.store, ctx, workspace, ctx.body, ctx.services.location);
      const thesisInput = {
        direction: ctx.body.user_direction,
        memories: sources.memories,
        passages: sources.passages,
        passagesFrom: sources.passagesFrom,
        max_points: ctx.body.max_points,
      };
      const llm = ctx.services.config.llm;
      const out =
        engine.kind === "openai-compatible" && llm
          ? await llmThesis(llm, thesisInput, (i) => ctx.services.pool.run("thesisPrompt", i), ctx.request.signal)
          : await ctx.services.pool.run("thesis", thesisInput);
      return { body: { ...out, model: engine.id } };
    },
  }),
];
