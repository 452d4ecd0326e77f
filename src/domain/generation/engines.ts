/** The generation engines a server offers: builtin always, openai-compatible when configured (DESIGN §8). */

import type { TaskPool } from "../../runtime/task-pool.js";
import { ApiError } from "../errors.js";
import { splitSentences } from "../text.js";
import { oneOf } from "../wording.js";
import type { GenerationInput, GenerationOutput, generateBuiltin, Source } from "./builtin.js";
import { chatComplete, chatStream, type LlmConfig, shownServerText } from "./llm.js";
import type { buildPrompt, finishAnswer } from "./prompt.js";

/** The pool the engines run their CPU work on: the builtin generation, an LLM's prompt and its answer's finish. */
export type GenerationPool = TaskPool<{
  generateBuiltin: typeof generateBuiltin;
  llmPrompt: typeof buildPrompt;
  llmFinish: typeof finishAnswer;
}>;

/** A started streamed generation: pieces as they come, then the whole result. */
export interface GenerationStream {
  pieces: AsyncIterable<string>;
  /** The finished output, once every piece has been read. */
  result(): Promise<GenerationOutput>;
}

/** One engine. */
export interface Engine {
  id: string;
  kind: "builtin" | "openai-compatible";
  description: string;
  generate(input: GenerationInput, signal?: AbortSignal): Promise<GenerationOutput>;
  /** Resolves once the engine has accepted the work (errors before any output are thrown here). */
  stream(input: GenerationInput, signal?: AbortSignal): Promise<GenerationStream>;
}

/** The builtin engine on the worker pool; its stream sends the finished text sentence by sentence. */
export function builtinEngine(pool: GenerationPool): Engine {
  return {
    id: "builtin",
    kind: "builtin",
    description: "Deterministic writer built into the server: no model, same input and seed give the same text.",
    generate: (input) => pool.run("generateBuiltin", input),
    async stream(input) {
      const out = await pool.run("generateBuiltin", input);
      async function* pieces() {
        // Paragraph by paragraph, sentence by sentence, keeping the layout's line breaks.
        const paragraphs = out.text.split(/(\n+)/);
        for (const part of paragraphs) {
          if (/^\n+$/.test(part)) yield part;
          else {
            const sentences = splitSentences(part);
            for (let i = 0; i < sentences.length; i++) yield i === 0 ? sentences[i] : ` ${sentences[i]}`;
            if (sentences.length === 0 && part) yield part;
          }
        }
      }
      return { pieces: pieces(), result: async () => out };
    },
  };
}

/**
 * The openai-compatible engine for an on-prem model server. The prompt (ranking the references' passages) and the
 * answer's finish (the voice's rules over the whole text) run on the pool: for 50 long references the ranking held
 * the HTTP thread for 2 s.
 */
export function llmEngine(cfg: LlmConfig, pool: GenerationPool): Engine {
  // The voice and the voice memories only: the input's passages need not cross to the thread again.
  const finish = (text: string, generation: GenerationInput, sources: Source[]) =>
    pool.run("llmFinish", {
      text,
      voice: generation.voice,
      sources,
      memories: generation.memories.filter((m) => m.kind === "voice"),
    });
  return {
    id: cfg.model,
    kind: "openai-compatible",
    // Shown to any read key: never a user name or password the URL may carry.
    description: `On-prem model ${cfg.model} at ${shownServerText(cfg.baseUrl)} (OpenAI-compatible chat completions).`,
    async generate(input, signal) {
      const { messages, sources } = await pool.run("llmPrompt", input);
      return finish(await chatComplete(cfg, messages, signal), input, sources);
    },
    async stream(input, signal) {
      const { messages, sources } = await pool.run("llmPrompt", input);
      const upstream = await chatStream(cfg, messages, signal);
      let text = "";
      let done = false;
      async function* pieces() {
        // Bounded: chatStream stops a model at MAX_ANSWER_CHARS, and its reads follow this generator's pace.
        for await (const piece of upstream) {
          text += piece;
          yield piece;
        }
        done = true;
      }
      return {
        pieces: pieces(),
        async result() {
          if (!done) throw new Error("the stream has not finished");
          return finish(text, input, sources);
        },
      };
    },
  };
}

/** Every engine of a server, the default first. */
export function enginesOf(pool: GenerationPool, llm?: LlmConfig): Engine[] {
  return llm ? [builtinEngine(pool), llmEngine(llm, pool)] : [builtinEngine(pool)];
}

/** The engine named by `model` (default: builtin), or 400 naming the ones there are. */
export function pickEngine(engines: Engine[], model: string | undefined): Engine {
  const engine = model === undefined ? engines[0] : engines.find((e) => e.id === model || e.kind === model);
  if (!engine)
    throw new ApiError(
      "validation_failed",
      `Unknown model "${model}"; this server offers: ${engines.map((e) => e.id).join(", ")}.`,
      {
        issues: [
          {
            path: "body.model",
            message: oneOf(
              "model",
              engines.map((e) => e.id),
              model,
            ),
          },
        ],
      },
    );
  return engine;
}
