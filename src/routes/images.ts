/**
 * Images (DESIGN §6, beta, account-level: not workspace-aware): upload as multipart/form-data or JSON base64,
 * generate with the builtin engine, list, read, download and delete. A file's type is decided by its bytes alone.
 */
import * as v from "valibot";
import { iso } from "../domain/clock.js";
import { invalidInput } from "../domain/errors.js";
import { generateImageRemote } from "../domain/generation/llm.js";
import {
  findImage,
  generatedFilename,
  imageNotFound,
  imageTooLarge,
  modelAnswerRefusal,
  uploadFilename,
  uploadRefusal,
} from "../domain/image-records.js";
import { IMAGE_TYPES, type ImageType, MAX_IMAGE_BYTES, MAX_IMAGE_SIDE } from "../domain/images/formats.js";
import { RENDER_LIMITS } from "../domain/images/render.js";
import { checkStorage } from "../domain/storage.js";
import { imageView } from "../domain/views/images.js";
import { oneOf } from "../domain/wording.js";
import { isUploadedFile, type UploadedFile } from "../http/body.js";
import type { Ctx } from "../http/context.js";
import { matchesEtag } from "../http/fixed-body.js";
import { route } from "../http/route.js";
import {
  described,
  exactlyOneOf,
  Integer,
  intString,
  maxChars,
  minChars,
  named,
  offeredModel,
  PageQuery,
  pageOf,
  Timestamp,
} from "../http/schemas.js";
import { transferable } from "../workers/tasks.js";
import {
  AUTH_ERRORS,
  BODY_ERRORS,
  decodeCursor,
  encodeCursor,
  INPUT_ERRORS,
  NOT_FOUND,
  page,
  UPSTREAM_ERRORS,
} from "./common.js";

/** Base64 needs 4 characters per 3 bytes: the longest data_base64 of an image within the limit. */
const MAX_BASE64_CHARS = Math.ceil(MAX_IMAGE_BYTES / 3) * 4;

/**
 * The request body ceiling of an upload: a whole 10 MiB image in base64 plus room for the JSON or multipart
 * envelope. The image itself is then held to MAX_IMAGE_BYTES exactly, whichever way it was sent.
 */
export const UPLOAD_BODY_LIMIT = MAX_BASE64_CHARS + 64 * 1024;

/**
 * The JSON body ceiling of an upload: base64 as encoders write it, wrapped every 64 (PEM, certutil) or 76 (MIME)
 * characters with an escaped CRLF (`\r\n`, 4 characters in JSON) per line, around a whole 10 MiB image. The server
 * drops the whitespace; the image is held to MAX_IMAGE_BYTES exactly. UPLOAD_BODY_LIMIT would refuse such a body of a
 * 10 MiB image.
 */
export const UPLOAD_JSON_LIMIT = MAX_BASE64_CHARS + Math.ceil(MAX_BASE64_CHARS / 64) * 4 + 64 * 1024;

/** How long clients may keep an image's bytes: ids are never reused, so the bytes behind one never change. */
const CONTENT_MAX_AGE = 86_400;

/** An uploaded or generated image's metadata (named Image in the description). */
const Image = named(
  "Image",
  v.object({
    id: described(Integer, "The image's id; never given to another image, even after it is deleted."),
    filename: described(v.string(), "The file name: as uploaded (without folders), or made from a prompt's words."),
    mime_type: described(v.picklist(IMAGE_TYPES), "The type, read from the bytes (never from the name)."),
    size_bytes: described(Integer, "The file's size in bytes."),
    width: described(Integer, "Width in pixels."),
    height: described(Integer, "Height in pixels."),
    source: described(v.picklist(["upload", "generated"]), "Whether it was uploaded or generated."),
    prompt: described(v.nullable(v.string()), "The prompt of a generated image; null for an upload."),
    created_at: described(Timestamp, "When it was stored."),
  }),
);
const IMAGE_EXAMPLE = {
  id: 12,
  filename: "flat-roof-with-solar-panels-at-dawn.png",
  mime_type: "image/png",
  size_bytes: 48213,
  width: 1024,
  height: 1024,
  source: "generated",
  prompt: "Flat roof with solar panels at dawn",
  created_at: "2026-03-02T11:00:00.000Z",
};
/** A 1×1 PNG in base64: the smallest well-formed image an upload example can carry. */
const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const ImageParams = v.object({ id: intString(1, Number.MAX_SAFE_INTEGER, "The image's id.") });
const ListQuery = v.object({
  ...PageQuery,
  source: v.optional(described(v.picklist(["upload", "generated"]), "Only uploads, or only generated images.")),
});
const Filename = v.pipe(
  v.string(),
  v.trim(),
  maxChars(255),
  v.description("The name to store it under (folders dropped); defaults to the file part's name, else image.<ext>."),
);

const UploadBody = v.pipe(
  v.object({
    file: v.optional(
      v.pipe(
        v.custom<UploadedFile>(isFilePart, "must be a file part (multipart/form-data)"),
        v.description("The image file (multipart/form-data)."),
      ),
    ),
    filename: v.optional(Filename),
    data_base64: v.optional(
      v.pipe(v.string(), v.description("The image bytes in base64 (JSON); a data: URL prefix is ignored.")),
    ),
  }),
  exactlyOneOf(["file", "data_base64"], "Send exactly one of file (multipart/form-data) or data_base64 (JSON)."),
);
type UploadInput = v.InferOutput<typeof UploadBody>;

const Side = v.pipe(v.number(), v.integer(), v.minValue(RENDER_LIMITS.minSide), v.maxValue(RENDER_LIMITS.maxSide));
const GenerateBody = v.object({
  prompt: described(
    v.pipe(v.string(), v.trim(), minChars(1), maxChars(RENDER_LIMITS.maxPromptChars)),
    "What to draw; trimmed, 1 to 1,000 characters.",
  ),
  width: v.optional(described(Side, "Width in pixels, 64 to 2048."), RENDER_LIMITS.defaultSide),
  height: v.optional(described(Side, "Height in pixels, 64 to 2048."), RENDER_LIMITS.defaultSide),
  seed: v.optional(
    described(
      v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(0xffffffff)),
      "The builtin engine's seed: the same prompt, size and seed give the same bytes.",
    ),
    0,
  ),
  model: v.optional(
    described(
      v.pipe(v.string(), minChars(1), maxChars(200), offeredModel("image")),
      "The image engine: one this server offers (GET /models lists them); left out, the builtin one.",
    ),
  ),
});
type GenerateInput = v.InferOutput<typeof GenerateBody>;

const Deleted = v.object({
  id: described(Integer, "The deleted image's id."),
  deleted: described(v.literal(true), "Always true."),
});

/** A file part of a multipart body; a JSON object that merely looks like one (bytes as an array) is not. */
function isFilePart(value: unknown): value is UploadedFile {
  return isUploadedFile(value) && value.bytes instanceof Uint8Array;
}

/**
 * Stores an accepted image of the caller's account, counts it, and answers 201 with its record. On the writer thread
 * (domain/writer.ts), its bytes handed over there: a 10 MiB insert takes about 8 ms, and under a write load it
 * would wait for the writer's transaction in progress, both on the thread answering every request.
 */
async function storeImage(
  ctx: Ctx,
  image: {
    filename: string;
    type: string;
    width: number;
    height: number;
    source: "upload" | "generated";
    prompt: string | null;
    bytes: Uint8Array;
    /** Computed with the bytes on the worker pool. */
    sha256: string;
  },
) {
  const data = image.bytes;
  checkStorage(ctx.services.store, ctx.account, data.byteLength);
  const row = await ctx.services.writer.run(
    "imageCreate",
    {
      accountId: ctx.principal.accountId,
      image: {
        filename: image.filename,
        mime_type: image.type,
        size_bytes: data.byteLength,
        width: image.width,
        height: image.height,
        source: image.source,
        prompt: image.prompt,
        sha256: image.sha256,
        data,
      },
      now: iso(ctx.services.clock.now()),
    },
    transferable(data),
  );
  ctx.services.usage.countFor(ctx.principal, { images: 1 });
  return { status: 201, body: imageView(row) };
}

/** An image drawn for a prompt: its bytes, their hash, type and size. */
interface Drawn {
  bytes: Uint8Array;
  sha256: string;
  type: ImageType;
  width: number;
  height: number;
}

/**
 * An image drawn by the configured model server. Its bytes are checked like an upload's: held to the same size, read
 * no further than that, and typed by their own header, never by its word.
 */
async function drawRemote(
  ctx: Ctx<Record<string, string>, unknown, GenerateInput>,
  remote: NonNullable<Ctx["services"]["config"]["imageModel"]>,
): Promise<Drawn> {
  const { prompt, width, height } = ctx.body;
  const answer = Buffer.from(
    await generateImageRemote(remote, { prompt, width, height, maxBytes: MAX_IMAGE_BYTES }, ctx.request.signal),
  );
  // On the pool, as an upload (readUpload): the check and hash of 10 MiB are not the HTTP thread's work.
  const seen = await ctx.services.pool.run("readUpload", { bytes: answer }, transferable(answer));
  if (!seen.ok) throw modelAnswerRefusal(seen, remote.model);
  return { bytes: seen.bytes, sha256: seen.sha256, type: seen.type, width: seen.width, height: seen.height };
}

/** A PNG rendered by the builtin engine: the same bytes for the same prompt, size and seed. */
async function drawBuiltin(ctx: Ctx<Record<string, string>, unknown, GenerateInput>): Promise<Drawn> {
  const { prompt, width, height, seed } = ctx.body;
  // Rendering a large picture takes a noticeable fraction of a second: off the HTTP thread.
  const rendered = await ctx.services.pool.run("renderImage", { prompt, width, height, seed });
  const bytes = Buffer.from(rendered.bytes.buffer, rendered.bytes.byteOffset, rendered.bytes.byteLength);
  return { bytes, sha256: rendered.sha256, type: "image/png", width, height };
}

/** Content-Disposition naming the file: an ASCII fallback and the exact name (RFC 6266 / 5987). */
function disposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  const exact = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `inline; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

/** The image routes, registered in src/routes/index.ts. */
export const imageRoutes = [
  route({
    method: "GET",
    path: "/api/v1/images",
    operationId: "listImages",
    summary: "List the account's images, newest first (optionally only uploads or only generated ones)",
    description:
      "Lists the metadata of the account's images, newest first, a page at a time; images belong to the account, " +
      "not to a workspace. Download the bytes with GET /images/{id}/content. Changes nothing.",
    tag: "Images",
    stability: "beta",
    access: "any",
    query: ListQuery,
    responses: {
      200: {
        description: "A page of images (metadata only).",
        schema: pageOf(Image),
        example: { data: [IMAGE_EXAMPLE], has_more: false, next_cursor: null },
      },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
    },
    handler(ctx: Ctx<Record<string, string>, v.InferOutput<typeof ListQuery>>) {
      const before = decodeCursor<number>(ctx.query.cursor, "number") ?? Number.MAX_SAFE_INTEGER;
      const rows = ctx.services.store.images.page(
        ctx.principal.accountId,
        before,
        ctx.query.limit + 1,
        ctx.query.source,
      );
      const p = page(rows, ctx.query.limit, (row) => encodeCursor(row.id));
      return { body: { ...p, data: p.data.map(imageView) } };
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/images",
    operationId: "uploadImage",
    created: (body: { id: number }) => `/api/v1/images/${body.id}`,
    summary:
      "Upload a PNG, JPEG, GIF or WebP image of at most 10 MiB and 16,384 pixels a side: multipart/form-data (file, optional filename) or JSON (filename, data_base64); the type is read from the bytes, and the file's structure is checked",
    description:
      "Stores an image for the account: send the file as multipart/form-data, or its bytes in base64 in JSON " +
      "(data_base64, with a filename). Its type is read from the bytes, whatever the name says, and the file is " +
      "checked to be a whole PNG, JPEG, GIF or WebP. Sending both a file and data_base64, or neither, a file that " +
      "is not one of those types or is damaged, or one larger than 16,384 pixels a side, is refused with 400; over " +
      "10 MiB with 413.",
    bodyExamples: { base64: { filename: "pixel.png", data_base64: PIXEL_PNG } },
    tag: "Images",
    stability: "beta",
    access: "any",
    // A body past its limit holds an image past 10 MiB: the 413 names the image's limit, not the envelope's.
    upload: { maxBytes: UPLOAD_BODY_LIMIT, jsonMaxBytes: UPLOAD_JSON_LIMIT, tooLarge: () => imageTooLarge() },
    body: UploadBody,
    responses: {
      201: {
        description: "The stored image.",
        schema: Image,
        example: {
          ...IMAGE_EXAMPLE,
          filename: "pixel.png",
          size_bytes: 70,
          width: 1,
          height: 1,
          source: "upload",
          prompt: null,
        },
      },
      ...AUTH_ERRORS,
      400: {
        ...INPUT_ERRORS[400],
        description: `Invalid input (details.error_code says which); \`validation_failed\` on body.file or body.data_base64 (the issue's message says what is wrong): a PNG, JPEG, GIF or WebP that is truncated or not well formed (PNG: IHDR first, critical chunks with correct CRCs, a PLTE for a palette image, IDAT data, IEND; JPEG: one frame header, a scan, EOI; GIF: the screen descriptor, an image, the trailer; WebP: whole chunks within the RIFF size, a VP8, VP8L or VP8X chunk, an extended image of its canvas's size), a width or height of zero, or one over ${MAX_IMAGE_SIDE} pixels.`,
      },
      413: { ...BODY_ERRORS[413], description: "The image is larger than 10 MiB (details.limit_bytes)." },
      415: {
        ...BODY_ERRORS[415],
        description:
          "unsupported_image_type: the bytes are not a PNG, JPEG, GIF or WebP image; unsupported_media_type: the body is neither multipart/form-data nor JSON.",
      },
    },
    async handler(ctx: Ctx<Record<string, string>, unknown, UploadInput>) {
      const { file, data_base64 } = ctx.body;
      if (file && file.bytes.byteLength > MAX_IMAGE_BYTES) throw imageTooLarge(file.bytes.byteLength);
      // Decoding, recognising and hashing 10 MiB held the thread answering every request for 30-90 ms: on the pool,
      // with a file's bytes handed over there and back rather than copied.
      const image = file
        ? await ctx.services.pool.run("readUpload", { bytes: file.bytes }, transferable(file.bytes))
        : await ctx.services.pool.run("readUpload", { base64: data_base64! });
      if (!image.ok) throw uploadRefusal(image, file ? "body.file" : "body.data_base64");
      return storeImage(ctx, {
        filename: uploadFilename(ctx.body.filename || file?.filename, image.type),
        type: image.type,
        width: image.width,
        height: image.height,
        source: "upload",
        prompt: null,
        bytes: image.bytes,
        sha256: image.sha256,
      });
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/images/generate",
    operationId: "generateImage",
    created: (body: { id: number }) => `/api/v1/images/${body.id}`,
    summary:
      "Generate an image from a prompt: the builtin engine renders a PNG (64–2048 px a side, default 1024×1024; the same prompt, size and seed give the same bytes); with model set to the configured image model, an OpenAI-compatible images endpoint draws it",
    description:
      "Makes an image from a prompt and stores it for the account, as an upload would be: the builtin engine " +
      "renders a PNG offline, the same for the same prompt, size and seed; with model set to the image model the " +
      "server is configured with, its OpenAI-compatible images endpoint draws it. Use the id in your content, and " +
      "download the bytes with GET /images/{id}/content.",
    bodyExamples: {
      square: { prompt: "Flat roof with solar panels at dawn" },
      banner: { prompt: "Solar panels on a warehouse roof, wide view", width: 1536, height: 512, seed: 42 },
    },
    tag: "Images",
    stability: "beta",
    access: "any",
    body: GenerateBody,
    responses: {
      201: { description: "The generated image.", schema: Image, example: IMAGE_EXAMPLE },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...UPSTREAM_ERRORS,
    },
    async handler(ctx: Ctx<Record<string, string>, unknown, GenerateInput>) {
      const { prompt, model } = ctx.body;
      const remote = ctx.services.config.imageModel;
      const offered = ["builtin", ...(remote ? [remote.model] : [])];
      if (model !== undefined && !offered.includes(model))
        throw invalidInput("body.model", oneOf("model", offered, model));
      const drawn = remote && model === remote.model ? await drawRemote(ctx, remote) : await drawBuiltin(ctx);
      return storeImage(ctx, {
        filename: generatedFilename(prompt, drawn.type),
        type: drawn.type,
        width: drawn.width,
        height: drawn.height,
        source: "generated",
        prompt,
        bytes: drawn.bytes,
        sha256: drawn.sha256,
      });
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/images/{id}",
    operationId: "getImage",
    summary: "Read one image's metadata",
    description:
      "Reads one image's metadata: type, size, pixels, and its prompt when generated. Changes nothing. An image of " +
      "another account is 404.",
    tag: "Images",
    stability: "beta",
    access: "any",
    params: ImageParams,
    responses: {
      200: { description: "The image's metadata.", schema: Image, example: IMAGE_EXAMPLE },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Image"),
    },
    handler(ctx: Ctx<{ id: number }>) {
      return { body: imageView(findImage(ctx.services.store, ctx.principal.accountId, ctx.params.id)) };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/images/{id}/content",
    operationId: "getImageContent",
    summary:
      "Download an image's bytes, exactly as stored, with its Content-Type, an ETag (If-None-Match answers 304) and Cache-Control",
    description:
      "Sends an image's bytes as stored, with its type, a file name (Content-Disposition: inline) and an ETag: send " +
      "the ETag back in If-None-Match for a 304 without the bytes. The bytes behind an id never change, so clients " +
      "may keep them for a day. Changes nothing.",
    tag: "Images",
    stability: "beta",
    access: "any",
    params: ImageParams,
    responses: {
      200: {
        description: "The image bytes.",
        contentType: "image/*",
        schema: v.pipe(v.string(), v.description("The image's bytes (binary).")),
        headers: ["ETag", "Cache-Control", "Content-Disposition"],
      },
      304: { description: "Not modified: the If-None-Match ETag is current.", headers: ["ETag", "Cache-Control"] },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Image"),
    },
    handler(ctx: Ctx<{ id: number }>) {
      const image = ctx.services.store.images.content(ctx.principal.accountId, ctx.params.id);
      if (!image) throw imageNotFound(ctx.params.id);
      const etag = `"${image.sha256}"`;
      const headers: Record<string, string> = {
        etag,
        "cache-control": `private, max-age=${CONTENT_MAX_AGE}`,
        vary: "Authorization",
      };
      if (matchesEtag(ctx.request.headers.get("if-none-match"), etag))
        return new Response(null, { status: 304, headers });
      // SQLite hands blobs back in Buffers over plain (never shared) ArrayBuffers.
      return new Response(image.data as Buffer<ArrayBuffer>, {
        status: 200,
        headers: {
          ...headers,
          "content-type": image.mime_type,
          "content-length": String(image.size_bytes),
          "content-disposition": disposition(image.filename),
          "x-content-type-options": "nosniff",
        },
      });
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/images/{id}",
    operationId: "deleteImage",
    summary: "Delete an image",
    description: "Deletes an image and its bytes. Its id is never given to another image.",
    tag: "Images",
    stability: "beta",
    access: "any",
    params: ImageParams,
    responses: {
      200: { description: "Deleted.", schema: Deleted },
      ...AUTH_ERRORS,
      ...INPUT_ERRORS,
      ...NOT_FOUND("Image"),
    },
    async handler(ctx: Ctx<{ id: number }>) {
      // On the writer thread: an image's bytes (up to 10 MiB) free that many pages.
      if (!(await ctx.services.writer.run("imageRemove", { accountId: ctx.principal.accountId, id: ctx.params.id })))
        throw imageNotFound(ctx.params.id);
      return { body: { id: ctx.params.id, deleted: true } };
    },
  }),
];
