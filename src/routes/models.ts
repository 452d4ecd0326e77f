/** GET /models (the engines this server offers) and POST /thesis (stable). */
import * as v from "valibot";
import { gatherSources } from "../domain/contents.js";
import { pickEngine } from "../domain/generation/engines.js";
import { llmThesis } from "../domain/generation/thesis.js";
import type { Ctx } from "../http/context.js";
import { route } from "../http/route.js";
import {
  described,
  Integer,
  maxChars,
  minChars,
  named,
  offeredModel,
  PageQuery,
  pageOf,
  WorkspaceIdField,
} from "../http/schemas.js";
import { AUTH_ERRORS, INPUT_ERRORS, NOT_FOUND, pageList, TASK_ERRORS, UPSTREAM_ERRORS } from "./common.js";

/** A generation engine this server offers (named Model in the description). */
const Model = named(
  "Model",
  v.object({
    id: described(v.string(), "The engine's name, to send as `model` to POST /generate and POST /thesis."),
    kind: described(
      v.picklist(["builtin", "openai-compatible"]),
      "builtin: the server's own writer, offline; openai-compatible: the on-prem model server it is configured with.",
    ),
    description: described(v.string(), "What the engine is, in words."),
    default: described(v.boolean(), "Whether requests that name no model use it."),
    streaming: described(v.boolean(), "Whether it answers stream: true with the text as it is written."),
  }),
);

const Id = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER));

const ThesisBody = v.object({
  user_direction: described(
    v.pipe(v.string(), v.trim(), minChars(1), maxChars(5000)),
    "The subject or claim to argue; trimmed, 1 to 5,000 characters.",
  ),
  reference_material_ids: v.optional(
    described(v.pipe(v.array(Id), v.maxLength(50)), "Reference materials to tie the points to, at most 50."),
  ),
  memory_ids: v.optional(described(v.pipe(v.array(Id), v.maxLength(50)), "Memories to apply, at most 50.")),
  max_points: v.optional(
    described(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10)), "How many supporting points, 1 to 10."),
    3,
  ),
  model: v.optional(
    described(
      v.pipe(v.string(), minChars(1), maxChars(200), offeredModel("text")),
      "The engine to write with: one this server offers (GET /models lists them); left out, the default one.",
    ),
  ),
  workspace_id: v.optional(WorkspaceIdField),
});

const Point = v.object({
  text: described(v.string(), "The point."),
  reference_material_id: described(v.nullable(Integer), "The reference material it rests on; null when none does."),
  passage: described(v.nullable(v.string()), "The passage of that material it rests on; null when none does."),
});

/** What POST /thesis answers (named Thesis in the description). */
const Thesis = named(
  "Thesis",
  v.object({
    thesis: described(v.string(), "The thesis statement."),
    supporting_points: described(
      v.array(Point),
      "Points for the thesis, each tied to a passage where one supports it.",
    ),
    counterpoints: described(v.array(v.string()), "Objections a reader may raise."),
    model: described(v.string(), "The engine that wrote it."),
  }),
);

/** GET /models: the generation engines this server offers. */
export const modelRoutes = [
  route({
    method: "GET",
    path: "/api/v1/models",
    operationId: "listModels",
    summary:
      "The generation engines this server offers, the default first: builtin, then the on-prem model when configured",
    description:
      "Lists the engines a request may name as `model` (POST /generate, POST /thesis), the default first: the " +
      "builtin engine, which works offline, then the on-prem model server when the server is configured with one. " +
      "A model not listed here is refused. Changes nothing.",
    tag: "Generation",
    stability: "beta",
    access: "any",
    query: v.object(PageQuery),
    responses: {
      200: {
        description: "The engines.",
        schema: pageOf(Model),
        example: {
          data: [
            {
              id: "builtin",
              kind: "builtin",
              description: "The built-in offline writer.",
              default: true,
              streaming: true,
            },
          ],
          has_more: false,
          next_cursor: null,
        },
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
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
    description:
      "Drafts the argument of a piece before it is written: a thesis, supporting points tied to the passages of the " +
      "reference materials named, and counterpoints. Use it to plan, then POST /generate. Stores nothing. Memories " +
      "and references are checked as generate checks them (404 with missing_ids).",
    bodyExamples: {
      plan: {
        user_direction: "Flat roofs are the best place for a building's solar panels.",
        reference_material_ids: [1],
        max_points: 3,
      },
    },
    tag: "Generation",
    stability: "stable",
    access: "any",
    workspace: "required",
    body: ThesisBody,
    responses: {
      200: {
        description: "The thesis.",
        schema: Thesis,
        example: {
          thesis: "Flat roofs are the best place for a building's solar panels.",
          supporting_points: [
            {
              text: "Ballast mounts hold panels without drilling.",
              reference_material_id: 7,
              passage: "Flat roofs need ballast mounts.",
            },
          ],
          counterpoints: ["A flat roof may not carry the ballast's weight."],
          model: "builtin",
        },
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
