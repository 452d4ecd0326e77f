/** Reading request bodies within their size limit, and JSON parsing with coded errors. */
import { ApiError } from "./errors.js";

/** JSON bodies may be at most 1 MiB (DESIGN §3). */
export const JSON_BODY_LIMIT = 1024 * 1024;

/** Reads a body into bytes, refusing it with 413 as soon as it passes `limit`. */
export async function readBodyLimited(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): ApiError {
  return new ApiError("payload_too_large", `The request body is larger than ${limit} bytes.`, { limit_bytes: limit });
}

/** Whether a Content-Type header names JSON (application/json or +json). */
export function isJsonContentType(value: string | null): boolean {
  if (value === null) return false;
  const type = value.split(";")[0].trim().toLowerCase();
  return type === "application/json" || /^application\/[\w.+-]+\+json$/.test(type);
}

/** A file from a multipart/form-data body. */
export interface UploadedFile {
  kind: "file";
  filename: string;
  /** The Content-Type the client claimed (never trusted for images: their bytes are checked). */
  type: string;
  bytes: Uint8Array;
}

/** Whether a value is an UploadedFile (for valibot's `custom`). */
export function isUploadedFile(value: unknown): value is UploadedFile {
  return typeof value === "object" && value !== null && (value as UploadedFile).kind === "file";
}

/** Parses a JSON request body; empty means `{}`; anything else must be valid UTF-8 JSON. */
export async function readJsonBody(request: Request, limit = JSON_BODY_LIMIT): Promise<unknown> {
  const bytes = await readBodyLimited(request, limit);
  if (bytes.byteLength === 0) return {};
  if (!isJsonContentType(request.headers.get("content-type")))
    throw new ApiError("unsupported_media_type", "Send the body as JSON with Content-Type: application/json.", {
      expected: "application/json",
    });
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError("invalid_json", "The request body is not valid UTF-8.");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("invalid_json", "The request body is not valid JSON.");
  }
}

/** Reads a body that may be multipart/form-data (for uploads) or JSON, within `limit` bytes. */
export async function readUploadBody(request: Request, limit: number, jsonLimit = JSON_BODY_LIMIT): Promise<unknown> {
  const type = (request.headers.get("content-type") ?? "").toLowerCase();
  if (!type.startsWith("multipart/form-data")) return readJsonBody(request, jsonLimit);
  const bytes = await readBodyLimited(request, limit);
  let form: FormData;
  try {
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    form = await new Response(buffer, { headers: { "content-type": request.headers.get("content-type")! } }).formData();
  } catch {
    throw new ApiError("validation_failed", "The multipart/form-data body cannot be read.", {
      issues: [{ path: "body", message: "Malformed multipart/form-data." }],
    });
  }
  const out: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    if (name in out) continue;
    if (typeof value === "string") out[name] = value;
    else
      out[name] = {
        kind: "file",
        filename: value.name,
        type: value.type,
        bytes: new Uint8Array(await value.arrayBuffer()),
      } satisfies UploadedFile;
  }
  return out;
}
