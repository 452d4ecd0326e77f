/**
 * The connection faults a request asks for with `Prefer: fault=…`, applied when its answer is written: the request
 * has run (a write is stored), its answer is lost. `reset`: the connection reset (RST) without a byte of it; `empty`:
 * the connection closed (FIN) without a byte; `truncated`: the status line and headers with the whole answer's
 * Content-Length, half of its bytes, then closed. Held by test/sandbox/socket-faults.test.ts.
 */
import type http from "node:http";
import { isStreamBody, type Outgoing } from "../http/exchange.js";
import type { AnswerWriter } from "../http/node.js";
import type { SocketFault } from "./prefer.js";

/** The whole body of an answer as bytes (a stream read to its end). */
async function bytesOf(body: Outgoing["body"]): Promise<Buffer> {
  if (body === null) return Buffer.alloc(0);
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (!isStreamBody(body)) return Buffer.from(body);
  return Buffer.from(await new Response(body).arrayBuffer());
}

/** Writes the first half of an answer under its whole length, then closes the connection. */
async function truncate(res: http.ServerResponse, out: Outgoing): Promise<void> {
  const body = await bytesOf(out.body);
  res.writeHead(out.status, { ...out.headers, "content-length": String(body.byteLength), connection: "close" });
  res.write(body.subarray(0, Math.floor(body.byteLength / 2)), () => res.destroy());
}

/** The writer of sandbox mode: an answer marked with a fault (`faults`) gets it; any other is written as always. */
export function faultingWriter(faults: WeakMap<Outgoing, SocketFault>): AnswerWriter {
  return async (res, out, write) => {
    const fault = faults.get(out);
    if (fault === undefined) return write();
    if (fault === "truncated") return truncate(res, out);
    if (isStreamBody(out.body)) void out.body.cancel().catch(() => {});
    if (fault === "reset") res.socket?.resetAndDestroy();
    else res.socket?.end(() => res.destroy());
  };
}
