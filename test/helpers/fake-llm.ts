/** A fake OpenAI-compatible model server for tests: its behaviour is chosen by the requested model name. */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** What the fake received, for assertions on the prompt. */
export interface FakeLlm {
  url: string;
  requests: {
    model: string;
    stream: boolean;
    messages: { role: string; content: string }[];
    authorization?: string;
    /** The request's path and query. */
    url?: string;
  }[];
  /** Resolves once a connection asking for `model` was closed by the client before its answer was complete. */
  dropped(model: string): Promise<void>;
  close(): Promise<void>;
}

const ANSWER =
  "# Written Planning Reviews\n\nRemote teams that hold a weekly written planning review ship more. Teams can utilize the review to plan.";

/** A valid 1×1 PNG. */
export const TINY_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

function chunks(text: string): string[] {
  return text.match(/.{1,12}/gs) ?? [];
}

function delta(content: string, finish: string | null = null): string {
  return `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;
}

/**
 * Writes `first`, then `next()` chunks as fast as the client takes them, up to `total` bytes, and then stalls with
 * the answer unfinished: an endless answer that stays bounded if the server under test never stops reading.
 */
function pump(res: http.ServerResponse, first: string, next: () => string, total: number): void {
  let sent = 0;
  const write = (chunk: string) => {
    sent += Buffer.byteLength(chunk);
    return res.write(chunk);
  };
  const more = () => {
    while (sent < total && !res.destroyed)
      if (!write(next())) {
        res.once("drain", more);
        return;
      }
  };
  if (write(first)) more();
  else res.once("drain", more);
}

const MiB = 1024 * 1024;

/**
 * Models: `plain` (JSON answer), `stream` (SSE with [DONE]), `error-object` (200 with {error}), `stream-error`
 * (an error object inside the stream), `cut` (stream ends without [DONE] or finish_reason), `slow` (answers after
 * 3 s), `slow-stream` (stalls after the first piece), `http-500`, `not-json`, `empty` (no choices),
 * `thesis` (a JSON thesis), `leaky` (a 401 whose text echoes the URL with its query, the Authorization header
 * and a URL with a password). Misbehaving ones: `stall-stream` (one piece, then nothing, never ending),
 * `no-newline` (4 MiB of one stream line), `endless-events` (valid events, 8 MB of them, then a stall),
 * `huge-body` (16 MiB of a JSON answer, then a stall), `cut-body` (part of the declared body, then the
 * connection closes), `null` (JSON null), `null-stream` (a stream event of JSON null); images: `image-huge` (16 MiB
 * of base64, then a stall), `image-null`.
 */
export async function startFakeLlm(): Promise<FakeLlm> {
  const requests: FakeLlm["requests"] = [];
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const drops = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  const dropOf = (model: string) => {
    let drop = drops.get(model);
    if (!drop) {
      let resolve = () => {};
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      drop = { promise, resolve };
      drops.set(model, drop);
    }
    return drop;
  };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => {
      raw += d;
    });
    req.on("end", () => {
      if (req.url === "/v1/images/generations" && req.method === "POST") {
        const body = JSON.parse(raw);
        requests.push({ model: body.model, stream: false, messages: [{ role: "user", content: body.prompt }] });
        res.on("close", () => !res.writableEnded && dropOf(body.model).resolve());
        const reply = (status: number, value: unknown) =>
          res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
        if (body.model === "image-text")
          return reply(200, { data: [{ b64_json: Buffer.from("not an image").toString("base64") }] });
        if (body.model === "image-error") return reply(400, { error: { message: "prompt rejected" } });
        if (body.model === "image-null") return reply(200, null);
        if (body.model === "image-huge") {
          res.writeHead(200, { "content-type": "application/json" });
          return pump(res, '{"data": [{"b64_json": "', () => "A".repeat(64 * 1024), 16 * MiB);
        }
        return reply(200, { data: [{ b64_json: TINY_PNG.toString("base64") }] });
      }
      if (req.url?.split("?")[0] !== "/v1/chat/completions" || req.method !== "POST") {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw);
      requests.push({
        model: body.model,
        stream: body.stream,
        messages: body.messages,
        authorization: req.headers.authorization,
        url: req.url,
      });
      res.on("close", () => !res.writableEnded && dropOf(body.model).resolve());
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
      const sse = () => res.writeHead(200, { "content-type": "text/event-stream" });
      switch (body.model) {
        case "plain":
          return json(200, {
            choices: [{ index: 0, message: { role: "assistant", content: ANSWER }, finish_reason: "stop" }],
          });
        case "thesis":
          return json(200, {
            choices: [
              {
                message: {
                  content:
                    '```json\n{"thesis": "Written reviews work.", "supporting_points": [{"text": "Teams ship more.", "source": 1}], "counterpoints": ["Reviews nobody reads fail."]}\n```',
                },
              },
            ],
          });
        case "error-object":
          return json(200, { error: { message: "model overloaded", type: "server_error" } });
        case "http-500":
          return json(500, { error: { message: "CUDA out of memory" } });
        case "leaky":
          return res
            .writeHead(401, { "content-type": "text/plain" })
            .end(
              `denied for http://${req.headers.host}${req.url} (Authorization: ${req.headers.authorization}); ` +
                "retry at https://ops:hunter2@gw.example/v1?token=tok_123",
            );
        case "not-json":
          return res.writeHead(200, { "content-type": "text/plain" }).end("<html>gateway</html>");
        case "empty":
          return json(200, { choices: [] });
        case "null":
          return json(200, null);
        case "null-stream": {
          sse();
          res.write(delta("Remote teams "));
          return res.end("data: null\n\n");
        }
        case "slow":
          return later(3_000, () => json(200, { choices: [{ message: { content: ANSWER } }] }));
        case "stream": {
          sse();
          for (const c of chunks(ANSWER)) res.write(delta(c));
          res.write(delta("", "stop"));
          return res.end("data: [DONE]\n\n");
        }
        case "stream-error": {
          sse();
          res.write(delta("Remote teams "));
          res.write(`data: ${JSON.stringify({ error: { message: "context length exceeded" } })}\n\n`);
          return res.end();
        }
        case "cut": {
          sse();
          res.write(delta("Remote teams that hold"));
          return res.end();
        }
        case "slow-stream": {
          sse();
          res.write(delta("Remote teams "));
          return later(3_000, () => res.end("data: [DONE]\n\n"));
        }
        case "stall-stream": {
          sse();
          return res.write(delta("Remote teams "));
        }
        case "no-newline": {
          sse();
          return pump(res, "data: ", () => "x".repeat(64 * 1024), 4 * MiB);
        }
        case "endless-events": {
          sse();
          const words = "Remote teams plan in writing. ".repeat(33);
          return pump(res, delta(words), () => delta(words), 8_000_000);
        }
        case "huge-body": {
          res.writeHead(200, { "content-type": "application/json" });
          return pump(res, '{"choices": [{"message": {"content": "', () => "x".repeat(64 * 1024), 16 * MiB);
        }
        case "cut-body": {
          const whole = JSON.stringify({ choices: [{ message: { content: ANSWER } }] });
          res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(whole) });
          // Half the declared body, then the connection goes (a model server that crashed mid-answer).
          return res.write(whole.slice(0, 40), () => res.socket?.destroy());
        }
        default:
          return json(404, { error: { message: `model ${body.model} not found` } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    dropped: (model) => dropOf(model).promise,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
