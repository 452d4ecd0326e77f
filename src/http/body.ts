/** Reading request bodies within their size limit, then parsing them (JSON or multipart) with coded errors. */

import busboy from "busboy";
import { ApiError, invalidInput } from "../domain/errors.js";
import { utf8CharLength } from "../runtime/chars.js";
import { jsonTokensExceed, MAX_JSON_TOKENS, MAX_MULTIPART_PARTS, multipartPartsExceed } from "./body-shape.js";
import type { Incoming } from "./exchange.js";

/** JSON bodies may be at most 1 MiB (DESIGN §3). */
export const JSON_BODY_LIMIT = 1024 * 1024;

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
  /** Its characters, counted as its bytes arrived (runtime/chars.ts utf8CharLength): exact for valid UTF-8. */
  chars: number;
}

/** Whether a value is an UploadedFile (for valibot's `custom`). */
export function isUploadedFile(value: unknown): value is UploadedFile {
  return typeof value === "object" && value !== null && (value as UploadedFile).kind === "file";
}

/** A request body as read off the wire, not yet parsed. */
export interface RawBody {
  bytes: Uint8Array;
  contentType: string | null;
  multipart: boolean;
  /** Read for an upload route, which also takes multipart/form-data. */
  upload?: boolean;
}

/**
 * Reads a body within its limit: JSON bodies up to `jsonLimit`; on upload routes, multipart/form-data bodies up to
 * the upload's own limit.
 */
export async function readBody(
  request: Incoming,
  upload?: { maxBytes: number; jsonMaxBytes?: number; tooLarge?: () => ApiError },
): Promise<RawBody> {
  const contentType = request.headers.get("content-type");
  const multipart = upload !== undefined && (contentType ?? "").toLowerCase().startsWith("multipart/form-data");
  const limit = !upload ? JSON_BODY_LIMIT : multipart ? upload.maxBytes : (upload.jsonMaxBytes ?? JSON_BODY_LIMIT);
  try {
    return { bytes: await request.bytes(limit), contentType, multipart, upload: upload !== undefined };
  } catch (e) {
    if (upload?.tooLarge && e instanceof ApiError && e.code === "payload_too_large") throw upload.tooLarge();
    throw e;
  }
}

/**
 * Parses a body read by readBody: multipart/form-data into fields and files, else JSON (empty means `{}`, unless the
 * route needs a body: RouteDef.bodyRequired).
 */
export function parseBody(raw: RawBody, required = false): unknown {
  return raw.multipart ? parseMultipart(raw) : parseJson(raw, required);
}

/** The invalid_json of a body with nothing in it, on a route that needs one. */
const emptyBody = () => new ApiError("invalid_json", "The request body is empty: this operation needs a JSON body.");

/**
 * Parses a JSON body; empty means `{}` (an operation whose fields are all optional may be sent without one), except
 * where one is `required`: there an empty body, or one of whitespace only, is no JSON at all. Anything else must be
 * valid UTF-8 JSON.
 */
function parseJson({ bytes, contentType, upload }: RawBody, required: boolean): unknown {
  if (bytes.byteLength === 0 && !required) return {};
  // Where a body is required the type is checked first, as it is known before the body is read: an empty body sent
  // as text/plain (or with no type) is the 415 of any other body of that type, not the 400 of an empty JSON one.
  if (!isJsonContentType(contentType))
    throw upload
      ? new ApiError(
          "unsupported_media_type",
          "Send the body as multipart/form-data (the file in a part) or as JSON with Content-Type: application/json.",
          { expected: "multipart/form-data or application/json" },
        )
      : new ApiError("unsupported_media_type", "Send the body as JSON with Content-Type: application/json.", {
          expected: "application/json",
        });
  if (bytes.byteLength === 0) throw emptyBody();
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError("invalid_json", "The request body is not valid UTF-8.");
  }
  // JSON's whitespace (RFC 8259 §2): a body of only that is as empty as one of no bytes.
  if (required && /^[ \t\n\r]*$/.test(text)) throw emptyBody();
  if (jsonTokensExceed(text, MAX_JSON_TOKENS))
    throw invalidInput(
      "body",
      `At most ${MAX_JSON_TOKENS} values and keys (counting , : [ {).`,
      `The JSON body has more than ${MAX_JSON_TOKENS} values and keys.`,
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_json", "The request body is not valid JSON.");
  }
  // A lone surrogate can only come as a \uD800-\uDFFF escape: SQLite would store it as three U+FFFD, and the answer
  // made from the request would differ from what a read returns. Every string is taken as it will be stored.
  return LONE_SURROGATE_ESCAPE.test(text) ? wellFormed(value) : value;
}

const LONE_SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** The value with every string and key made well-formed (a lone surrogate becomes U+FFFD); no recursion. */
function wellFormed(root: unknown): unknown {
  const fix = (v: unknown) => (typeof v === "string" ? v.toWellFormed() : v);
  const fixed = fix(root);
  const stack: unknown[] = [fixed];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        node[i] = fix(node[i]);
        if (node[i] !== null && typeof node[i] === "object") stack.push(node[i]);
      }
    } else if (node !== null && typeof node === "object") {
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        let k = key;
        if (!key.isWellFormed()) {
          k = key.toWellFormed();
          record[k] = record[key];
          delete record[key];
        }
        record[k] = fix(record[k]);
        if (record[k] !== null && typeof record[k] === "object") stack.push(record[k]);
      }
    }
  }
  return fixed;
}

/** The slice of a multipart body parsed per turn of the event loop: a 5 MiB upload never holds the thread. */
export const MULTIPART_SLICE = 64 * 1024;

async function parseMultipart({ bytes, contentType }: RawBody): Promise<unknown> {
  if (multipartPartsExceed(bytes, contentType!, MAX_MULTIPART_PARTS))
    throw invalidInput(
      "body",
      `At most ${MAX_MULTIPART_PARTS} parts.`,
      `The multipart/form-data body has more than ${MAX_MULTIPART_PARTS} parts.`,
    );
  try {
    return await parseParts(bytes, contentType!);
  } catch {
    throw invalidInput("body", "Malformed multipart/form-data.", "The multipart/form-data body cannot be read.");
  }
}

/**
 * The fields and files of a multipart body, the first part of a name winning. A part with a filename is a file;
 * fields and filenames are UTF-8. The body is fed to the parser MULTIPART_SLICE bytes at a time, a macrotask apart,
 * and each file's characters are counted as its bytes arrive (test/http/body-multipart.test.ts).
 */
async function parseParts(bytes: Uint8Array, contentType: string): Promise<Record<string, unknown>> {
  const parser = busboy({
    headers: { "content-type": contentType },
    preservePath: true,
    defParamCharset: "utf8",
    limits: { fieldSize: Number.POSITIVE_INFINITY, fieldNameSize: Number.POSITIVE_INFINITY },
  });
  const out: Record<string, unknown> = {};
  let failure: Error | undefined;
  const done = new Promise<void>((resolve, reject) => {
    parser.on("close", resolve);
    parser.on("error", (e: Error) => {
      failure = e;
      reject(e);
    });
  });
  done.catch(() => {});
  // undici's rules, where the parser's differ: a part needs a name; a field is UTF-8 with no byte order mark (a
  // TextDecoder drops it), whatever charset it claims; a part is a file by its filename, not by an
  // application/octet-stream type.
  const named = (name: string | undefined) => {
    if (name === undefined) parser.destroy(new Error("A part without a name."));
    return name !== undefined && !(name in out);
  };
  parser.on("field", (name, value) => {
    if (named(name)) out[name] = withoutBom(value);
  });
  parser.on("file", (name, stream, info) => {
    // A part cut short fails its stream as well as the parser: the parser's error is the one answered.
    stream.on("error", () => {});
    if (!named(name)) {
      stream.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let chars = 0;
    const asField = info.filename === undefined;
    const file: UploadedFile = {
      kind: "file",
      filename: info.filename ?? "",
      type: info.mimeType,
      bytes: EMPTY,
      chars,
    };
    out[name] = asField ? "" : file;
    stream.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      chars += utf8CharLength(chunk);
    });
    stream.on("end", () => {
      file.bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      file.chars = chars;
      if (asField) out[name] = new TextDecoder().decode(file.bytes);
    });
  });
  for (let at = 0; at < bytes.byteLength && !failure; at += MULTIPART_SLICE) {
    const slice = bytes.subarray(at, at + MULTIPART_SLICE);
    await new Promise<void>((resolve) => parser.write(slice, () => resolve()));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (!failure) parser.end();
  await done;
  return out;
}

const EMPTY = new Uint8Array(0);

const withoutBom = (value: string) => (value.startsWith("\uFEFF") ? value.slice(1) : value);
