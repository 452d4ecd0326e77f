/**
 * The openai-compatible engine: POST {base}/v1/chat/completions, the request shape Ollama, llama.cpp's server,
 * vLLM and LocalAI share; plain and streamed. Every failure becomes a coded 502/504 within a bounded time.
 */
import { ApiError } from "../../http/errors.js";

/** How to reach the on-prem model server. */
export interface LlmConfig {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Longest wait for the answer to start, and between two pieces of a stream. */
  timeoutMs: number;
}

/** One chat message. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

function endpoint(cfg: LlmConfig): string {
  return `${cfg.baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1/chat/completions`;
}

function unavailable(cfg: LlmConfig, why: string): ApiError {
  return new ApiError("upstream_unavailable", `The model server at ${cfg.baseUrl} cannot be reached: ${why}.`, {
    model: cfg.model,
  });
}

function timedOut(cfg: LlmConfig): ApiError {
  return new ApiError("upstream_timeout", `The model server did not answer within ${cfg.timeoutMs / 1000} s.`, {
    model: cfg.model,
    timeout_seconds: cfg.timeoutMs / 1000,
  });
}

function upstreamError(cfg: LlmConfig, message: string, status?: number): ApiError {
  return new ApiError("upstream_error", `The model server answered with an error: ${message.slice(0, 500)}`, {
    model: cfg.model,
    ...(status ? { upstream_status: status } : {}),
  });
}

function invalid(cfg: LlmConfig, why: string): ApiError {
  return new ApiError("upstream_invalid_response", `The model server's answer cannot be used: ${why}.`, {
    model: cfg.model,
  });
}

/** The message of an OpenAI-style error object, if the value is one. */
function errorMessage(value: unknown): string | undefined {
  if (!value || typeof value !== "object") return undefined;
  const err = (value as { error?: unknown }).error;
  if (err === undefined || err === null) return undefined;
  if (typeof err === "string") return err;
  if (typeof err === "object" && typeof (err as { message?: unknown }).message === "string")
    return (err as { message: string }).message;
  return JSON.stringify(err);
}

/** Sends the request and waits for the answer's head, within the timeout. */
async function open(cfg: LlmConfig, messages: ChatMessage[], stream: boolean, signal?: AbortSignal): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("timeout")), cfg.timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  let res: Response;
  try {
    res = await fetch(endpoint(cfg), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: stream ? "text/event-stream" : "application/json",
        ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: cfg.model, messages, stream, temperature: 0.7 }),
      signal: controller.signal,
    });
  } catch (e) {
    if (controller.signal.aborted && !signal?.aborted) throw timedOut(cfg);
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw unavailable(cfg, cause?.code ?? cause?.message ?? (e as Error).message);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
  if (!res.ok) {
    const text = await readWithTimeout(cfg, res).catch(() => "");
    let message = text || res.statusText || `HTTP ${res.status}`;
    try {
      message = errorMessage(JSON.parse(text)) ?? message;
    } catch {}
    throw upstreamError(cfg, message, res.status);
  }
  return res;
}

async function readWithTimeout(cfg: LlmConfig, res: Response): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      res.text(),
      new Promise<string>((_, reject) => {
        timer = setTimeout(() => reject(timedOut(cfg)), cfg.timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** One answer, not streamed. */
export async function chatComplete(cfg: LlmConfig, messages: ChatMessage[], signal?: AbortSignal): Promise<string> {
  const res = await open(cfg, messages, false, signal);
  const text = await readWithTimeout(cfg, res);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalid(cfg, "not JSON");
  }
  const message = errorMessage(body);
  if (message) throw upstreamError(cfg, message);
  const content = (body as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
  if (typeof content !== "string" || content.trim() === "") throw invalid(cfg, "no choices[0].message.content");
  return content;
}

/**
 * A streamed answer: resolves once the model server has accepted the request (so connection and HTTP errors
 * are thrown before anything is sent to the client), then yields the text pieces as they arrive.
 */
export async function chatStream(
  cfg: LlmConfig,
  messages: ChatMessage[],
  signal?: AbortSignal,
): Promise<AsyncGenerator<string, void, undefined>> {
  const res = await open(cfg, messages, true, signal);
  if (!res.body) throw invalid(cfg, "an empty stream");
  const reader = res.body.getReader();
  const decoder = new TextDecoder();

  async function read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(timedOut(cfg)), cfg.timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function* pieces(): AsyncGenerator<string, void, undefined> {
    let buffer = "";
    let finished = false;
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await read();
        } catch (e) {
          if (e instanceof ApiError) throw e;
          throw invalid(cfg, "the stream broke off");
        }
        if (chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true });
        let newline = buffer.indexOf("\n");
        while (newline !== -1) {
          const line = buffer.slice(0, newline).replace(/\r$/, "");
          buffer = buffer.slice(newline + 1);
          newline = buffer.indexOf("\n");
          if (!line.startsWith("data:")) continue;
          const data = line.slice(5).trim();
          if (data === "[DONE]") {
            finished = true;
            return;
          }
          let event: unknown;
          try {
            event = JSON.parse(data);
          } catch {
            throw invalid(cfg, "a stream event that is not JSON");
          }
          const message = errorMessage(event);
          if (message) throw upstreamError(cfg, message);
          const choice = (event as { choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[] })
            .choices?.[0];
          const piece = choice?.delta?.content;
          if (typeof piece === "string" && piece) yield piece;
          if (choice?.finish_reason) finished = true;
        }
      }
      if (!finished) throw invalid(cfg, "the stream ended before it was complete");
    } finally {
      reader.cancel().catch(() => {});
    }
  }
  return pieces();
}

/**
 * An image from an OpenAI-compatible images endpoint (POST {base}/v1/images/generations, b64_json); the bytes
 * are returned as they came and checked by the caller.
 */
export async function generateImageRemote(
  cfg: LlmConfig,
  req: { prompt: string; width: number; height: number },
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const url = `${cfg.baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1/images/generations`;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("timeout")), cfg.timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: cfg.model,
          prompt: req.prompt,
          n: 1,
          size: `${req.width}x${req.height}`,
          response_format: "b64_json",
        }),
        signal: controller.signal,
      });
    } catch (e) {
      if (controller.signal.aborted && !signal?.aborted) throw timedOut(cfg);
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw unavailable(cfg, cause?.code ?? cause?.message ?? (e as Error).message);
    }
    let text: string;
    try {
      text = await res.text();
    } catch {
      if (controller.signal.aborted) throw timedOut(cfg);
      throw invalid(cfg, "the answer broke off");
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      if (!res.ok) throw upstreamError(cfg, text || `HTTP ${res.status}`, res.status);
      throw invalid(cfg, "not JSON");
    }
    const message = errorMessage(body);
    if (!res.ok || message) throw upstreamError(cfg, message ?? `HTTP ${res.status}`, res.ok ? undefined : res.status);
    const b64 = (body as { data?: { b64_json?: unknown }[] }).data?.[0]?.b64_json;
    if (typeof b64 !== "string" || b64 === "") throw invalid(cfg, "no data[0].b64_json");
    return Buffer.from(b64, "base64");
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}
