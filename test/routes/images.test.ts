import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_IMAGE_BYTES } from "../../src/domain/images/formats.js";
import { UPLOAD_BODY_LIMIT, UPLOAD_JSON_LIMIT } from "../../src/routes/images.js";
import { ContractError } from "../helpers/contract.js";
import { contract, type Harness, makeHarness } from "../helpers/harness.js";
import { gif, jpeg, png, pngChunk, pngOf, readPng, webp } from "../helpers/images.js";

/** A response with its raw bytes and, when JSON, its parsed body. */
interface Reply {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of bodies.
  body: any;
}

interface Call {
  auth?: string;
  form?: FormData;
  json?: unknown;
  raw?: Uint8Array;
  headers?: Record<string, string>;
}

/** Sends one request through the app: a multipart form, a JSON body or raw bytes. */
async function call(h: Harness, method: string, path: string, opts: Call = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.auth) headers.authorization = `Bearer ${opts.auth}`;
  let body: BodyInit | undefined;
  if (opts.form) body = opts.form;
  else if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers["content-type"] ??= "application/json";
  } else if (opts.raw) body = new Uint8Array(opts.raw);
  const res = await h.app.handle(new Request(`http://test.local${path}`, { method, headers, body }), {
    remoteAddress: "127.0.0.1",
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const isJson = (res.headers.get("content-type") ?? "").includes("json");
  return {
    status: res.status,
    headers: res.headers,
    bytes,
    body: isJson ? JSON.parse(Buffer.from(bytes).toString()) : undefined,
  };
}

/** A multipart form with the image under `file` (with the client's name and claimed type) and extra fields. */
function form(
  bytes: Uint8Array,
  filename: string,
  type = "application/octet-stream",
  fields: Record<string, string> = {},
) {
  const f = new FormData();
  f.append("file", new Blob([new Uint8Array(bytes)], { type }), filename);
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const IMAGE_FIELDS = ["created_at", "filename", "height", "id", "mime_type", "prompt", "size_bytes", "source", "width"];

function expectError(res: Reply, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.details.error_code).toBe(code);
  expect(res.body.detail).toEqual(res.body.details);
  expect(res.headers.get("x-trace-id")).toBe(res.body.trace_id);
}

/** A GIF whose logical screen is 0 × 0 (some encoders write one): shown, and stored, at its first image's 6 × 4. */
const zeroScreenGif = gif(6, 4);
zeroScreenGif.set([0, 0, 0, 0], 6);

const FORMATS = [
  { name: "PNG", bytes: png(3, 2), mime: "image/png", width: 3, height: 2 },
  { name: "JPEG", bytes: jpeg(640, 480), mime: "image/jpeg", width: 640, height: 480 },
  { name: "GIF87a", bytes: gif(5, 7, "87a"), mime: "image/gif", width: 5, height: 7 },
  { name: "GIF89a", bytes: gif(8, 9), mime: "image/gif", width: 8, height: 9 },
  { name: "GIF on a 0 × 0 screen", bytes: zeroScreenGif, mime: "image/gif", width: 6, height: 4 },
  { name: "WebP lossy", bytes: webp(100, 50, "lossy"), mime: "image/webp", width: 100, height: 50 },
  { name: "WebP lossless", bytes: webp(30, 20, "lossless"), mime: "image/webp", width: 30, height: 20 },
  { name: "WebP extended", bytes: webp(4000, 3000, "extended"), mime: "image/webp", width: 4000, height: 3000 },
];

describe("POST /api/v1/images: upload", () => {
  let h: Harness;
  let key: string;
  beforeAll(() => {
    h = makeHarness();
    key = h.key();
  });

  it.each(FORMATS)("$name by multipart: 201 with the image fields, and the bytes come back byte-exact", async (f) => {
    const up = await call(h, "POST", "/api/v1/images", { auth: key, form: form(f.bytes, `picture.${f.name}`) });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    expect(Object.keys(up.body).sort()).toEqual(IMAGE_FIELDS);
    expect(up.body).toMatchObject({
      filename: `picture.${f.name}`,
      mime_type: f.mime,
      size_bytes: f.bytes.length,
      width: f.width,
      height: f.height,
      source: "upload",
      prompt: null,
      created_at: new Date(h.clock.now()).toISOString(),
    });
    expect(up.headers.get("location")).toBe(`/api/v1/images/${up.body.id}`);
    expect(up.headers.get("x-api-stability")).toBe("beta");

    const meta = await call(h, "GET", `/api/v1/images/${up.body.id}`, { auth: key });
    expect(meta.status).toBe(200);
    expect(meta.body).toEqual(up.body);

    const content = await call(h, "GET", `/api/v1/images/${up.body.id}/content`, { auth: key });
    expect(content.status).toBe(200);
    expect(Buffer.compare(content.bytes, f.bytes)).toBe(0);
    expect(content.headers.get("content-type")).toBe(f.mime);
    expect(content.headers.get("content-length")).toBe(String(f.bytes.length));
    expect(content.headers.get("etag")).toBe(`"${sha256(f.bytes)}"`);
    expect(content.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);
    expect(content.headers.get("x-content-type-options")).toBe("nosniff");
    expect(content.headers.get("x-ratelimit-limit")).not.toBeNull();
    expect(content.headers.get("x-trace-id")).not.toBeNull();
  });

  it.each(FORMATS)("$name by JSON base64: the same fields and bytes", async (f) => {
    const up = await call(h, "POST", "/api/v1/images", {
      auth: key,
      json: { filename: "from-json.bin", data_base64: b64(f.bytes) },
    });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    expect(up.body).toMatchObject({ filename: "from-json.bin", mime_type: f.mime, width: f.width, height: f.height });
    const content = await call(h, "GET", `/api/v1/images/${up.body.id}/content`, { auth: key });
    expect(Buffer.compare(content.bytes, f.bytes)).toBe(0);
  });

  it("accepts base64 with line breaks, the URL-safe alphabet and a data: URL prefix; names an unnamed file", async () => {
    const bytes = jpeg(33, 44);
    const wrapped = b64(bytes).replace(/.{60}/g, "$&\n");
    const urlSafe = Buffer.from(bytes).toString("base64url");
    for (const data_base64 of [wrapped, urlSafe, `data:image/gif;base64,${b64(bytes)}`]) {
      const up = await call(h, "POST", "/api/v1/images", { auth: key, json: { data_base64 } });
      expect(up.status, data_base64.slice(0, 30)).toBe(201);
      expect(up.body).toMatchObject({ mime_type: "image/jpeg", filename: "image.jpg", width: 33, height: 44 });
      const content = await call(h, "GET", `/api/v1/images/${up.body.id}/content`, { auth: key });
      expect(Buffer.compare(content.bytes, bytes)).toBe(0);
    }
  });

  it("decides the type by the bytes: a PNG named .jpg with Content-Type image/jpeg is a PNG", async () => {
    const bytes = png(12, 34);
    const up = await call(h, "POST", "/api/v1/images", { auth: key, form: form(bytes, "photo.jpg", "image/jpeg") });
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ mime_type: "image/png", filename: "photo.jpg", width: 12, height: 34 });
    const content = await call(h, "GET", `/api/v1/images/${up.body.id}/content`, { auth: key });
    expect(content.headers.get("content-type")).toBe("image/png");
  });

  it("refuses a text file named .png with Content-Type image/png: 415 unsupported_image_type", async () => {
    const text = new TextEncoder().encode("just some notes, not a picture\n");
    const viaForm = await call(h, "POST", "/api/v1/images", { auth: key, form: form(text, "notes.png", "image/png") });
    expectError(viaForm, 415, "unsupported_image_type");
    expect(viaForm.body.details.accepted_types).toEqual(["image/png", "image/jpeg", "image/gif", "image/webp"]);
    const viaJson = await call(h, "POST", "/api/v1/images", {
      auth: key,
      json: { filename: "notes.png", data_base64: b64(text) },
    });
    expectError(viaJson, 415, "unsupported_image_type");
  });

  it("refuses a truncated or corrupt header with 400 validation_failed naming the field", async () => {
    const truncated = png(3, 2).subarray(0, 20);
    const viaForm = await call(h, "POST", "/api/v1/images", { auth: key, form: form(truncated, "cut.png") });
    expectError(viaForm, 400, "validation_failed");
    expect(viaForm.body.details.issues[0].path).toBe("body.file");
    const corrupt = webp(10, 10, "lossy");
    corrupt[23] = 0;
    const viaJson = await call(h, "POST", "/api/v1/images", { auth: key, json: { data_base64: b64(corrupt) } });
    expectError(viaJson, 400, "validation_failed");
    expect(viaJson.body.details.issues[0].path).toBe("body.data_base64");
  });

  it("refuses a PNG without image data, one whose IHDR says 4,294,967,295 wide and a JPEG without its quantization table, saying what is wrong", async () => {
    const one = png(1, 1);
    const [ihdr, idat, iend] = [one.subarray(8, 33), one.subarray(33, one.length - 12), one.subarray(one.length - 12)];
    const noData = pngOf([...ihdr], [...iend]);
    const viaForm = await call(h, "POST", "/api/v1/images", { auth: key, form: form(noData, "empty.png") });
    expectError(viaForm, 400, "validation_failed");
    expect(viaForm.body.details.issues).toEqual([
      { path: "body.file", message: "The PNG has no image data (IDAT chunk)." },
    ]);
    const huge = pngOf(pngChunk("IHDR", [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 1, 0, 0, 0, 0]), [...idat], [...iend]);
    const viaJson = await call(h, "POST", "/api/v1/images", { auth: key, json: { data_base64: b64(huge) } });
    expectError(viaJson, 400, "validation_failed");
    expect(viaJson.body.details.issues).toEqual([
      {
        path: "body.data_base64",
        message: "The image is 4294967295 × 1 pixels; at most 16384 pixels a side are accepted.",
      },
    ]);
    // A JPEG frame whose components use a quantization table no DQT defined: libjpeg refuses to decode it.
    const jpg = jpeg(8, 8);
    const sof = jpg.lastIndexOf(0xc0, jpg.indexOf(0xda) - 1) - 1;
    jpg[sof + 12] = 2;
    const noTable = await call(h, "POST", "/api/v1/images", { auth: key, form: form(jpg, "no-table.jpg") });
    expectError(noTable, 400, "validation_failed");
    expect(noTable.body.details.issues).toEqual([
      {
        path: "body.file",
        message: "The JPEG's component 1 uses quantization table 2, which no DQT defines before its first scan.",
      },
    ]);
    // The largest accepted side, and one past it.
    const edge = await call(h, "POST", "/api/v1/images", { auth: key, form: form(gif(16_384, 1), "edge.gif") });
    expect(edge.status, JSON.stringify(edge.body)).toBe(201);
    expectError(
      await call(h, "POST", "/api/v1/images", { auth: key, form: form(gif(1, 16_385), "past.gif") }),
      400,
      "validation_failed",
    );
  });

  it.each([
    { name: "neither file nor data_base64", json: { filename: "x.png" } },
    { name: "data_base64 that is not base64", json: { data_base64: "iVBOR***" } },
    { name: "an empty image", json: { data_base64: "" } },
    // Found by review: /=+$/ scanned a long run of "=" from each of its characters (minutes for 1 MB, on the event loop).
    { name: "a million '=' before a digit", json: { data_base64: `${"=".repeat(1_000_000)}A` } },
    { name: "padding only", json: { data_base64: "=".repeat(1_000) } },
    { name: "data_base64 of the wrong type", json: { data_base64: 12 } },
    {
      name: "a JSON object posing as a file part",
      json: { file: { kind: "file", filename: "x.png", type: "image/png", bytes: [...png(1, 1)] } },
    },
    { name: "a filename over 255 characters", json: { filename: "x".repeat(256), data_base64: b64(png(1, 1)) } },
  ])("answers 400 validation_failed for $name", async ({ json }) => {
    expectError(await call(h, "POST", "/api/v1/images", { auth: key, json }), 400, "validation_failed");
  });

  it("answers 400 for a form with both a file and data_base64, and for a form whose file is a plain field", async () => {
    const both = form(png(1, 1), "a.png", "image/png", { data_base64: b64(png(1, 1)) });
    expectError(await call(h, "POST", "/api/v1/images", { auth: key, form: both }), 400, "validation_failed");
    const plain = new FormData();
    plain.append("file", "not a file part");
    expectError(await call(h, "POST", "/api/v1/images", { auth: key, form: plain }), 400, "validation_failed");
  });

  it("answers 415 unsupported_media_type for a body that is neither multipart nor JSON", async () => {
    const res = await call(h, "POST", "/api/v1/images", {
      auth: key,
      raw: png(1, 1),
      headers: { "content-type": "image/png" },
    });
    expectError(res, 415, "unsupported_media_type");
  });

  it("keeps the explicit filename field over the file's own name, and drops any path from names", async () => {
    const named = await call(h, "POST", "/api/v1/images", {
      auth: key,
      form: form(gif(1, 1), "upload.bin", "image/gif", { filename: "Holiday 2026 — beach.gif" }),
    });
    expect(named.body.filename).toBe("Holiday 2026 — beach.gif");
    const pathy = await call(h, "POST", "/api/v1/images", {
      auth: key,
      json: { filename: "C:\\fakepath\\..\\secret/../me.gif", data_base64: b64(gif(1, 1)) },
    });
    expect(pathy.body.filename).toBe("me.gif");
    const content = await call(h, "GET", `/api/v1/images/${named.body.id}/content`, { auth: key });
    expect(content.headers.get("content-disposition")).toBe(
      `inline; filename="Holiday 2026 _ beach.gif"; filename*=UTF-8''Holiday%202026%20%E2%80%94%20beach.gif`,
    );
  });
});

describe("the 10 MiB limit applies to the image bytes exactly", () => {
  let h: Harness;
  let key: string;
  const exactly = png(4, 4, MAX_IMAGE_BYTES);
  const onePast = png(4, 4, MAX_IMAGE_BYTES + 1);
  beforeAll(() => {
    h = makeHarness();
    key = h.key();
  });

  it("builds test files of exactly 10 MiB and 10 MiB + 1 byte", () => {
    expect(exactly.length).toBe(10 * 1024 * 1024);
    expect(onePast.length).toBe(10 * 1024 * 1024 + 1);
  });

  it("accepts exactly 10 MiB by multipart, byte-exact", async () => {
    const up = await call(h, "POST", "/api/v1/images", { auth: key, form: form(exactly, "big.png", "image/png") });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    expect(up.body).toMatchObject({ size_bytes: MAX_IMAGE_BYTES, width: 4, height: 4 });
    const content = await call(h, "GET", `/api/v1/images/${up.body.id}/content`, { auth: key });
    expect(content.bytes.length).toBe(MAX_IMAGE_BYTES);
    expect(sha256(content.bytes)).toBe(sha256(exactly));
  });

  it("accepts exactly 10 MiB by JSON base64", async () => {
    const up = await call(h, "POST", "/api/v1/images", {
      auth: key,
      json: { filename: "big.png", data_base64: b64(exactly) },
    });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    expect(up.body.size_bytes).toBe(MAX_IMAGE_BYTES);
  });

  it("refuses 10 MiB + 1 byte with 413 payload_too_large and limit_bytes, by multipart and by JSON", async () => {
    const viaForm = await call(h, "POST", "/api/v1/images", { auth: key, form: form(onePast, "big.png", "image/png") });
    expectError(viaForm, 413, "payload_too_large");
    expect(viaForm.body.details.limit_bytes).toBe(MAX_IMAGE_BYTES);
    const viaJson = await call(h, "POST", "/api/v1/images", { auth: key, json: { data_base64: b64(onePast) } });
    expectError(viaJson, 413, "payload_too_large");
    expect(viaJson.body.details.limit_bytes).toBe(MAX_IMAGE_BYTES);
    const list = await call(h, "GET", "/api/v1/images", { auth: key });
    expect(list.body.data.map((i: { size_bytes: number }) => i.size_bytes)).toEqual([MAX_IMAGE_BYTES, MAX_IMAGE_BYTES]);
  });

  it("refuses a request body past the upload ceiling from its Content-Length, before reading it, naming the image's limit", async () => {
    for (const [type, ceiling] of [
      ["application/json", UPLOAD_JSON_LIMIT],
      ["multipart/form-data; boundary=x", UPLOAD_BODY_LIMIT],
    ] as const) {
      const res = await call(h, "POST", "/api/v1/images", {
        auth: key,
        raw: new Uint8Array(16),
        headers: { "content-type": type, "content-length": String(ceiling + 1) },
      });
      expectError(res, 413, "payload_too_large");
      // The envelope's ceiling (about 13.4 MiB of base64) had been named as the limit.
      expect(res.body.details.limit_bytes).toBe(MAX_IMAGE_BYTES);
      expect(res.body.message).toBe("The image is larger than 10485760 bytes (10 MiB).");
    }
  });

  it("takes a whole 10 MiB image as base64 wrapped every 76 characters with CRLF, as MIME encoders write it", async () => {
    const wrapped = b64(exactly).replace(/.{76}/g, "$&\r\n");
    const res = await call(h, "POST", "/api/v1/images", { auth: key, json: { data_base64: wrapped } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.size_bytes).toBe(MAX_IMAGE_BYTES);
  });

  it("keeps a file name of 255 emoji whole, and cuts a longer one at 255 characters, never inside one", async () => {
    const small = png(4, 4);
    const exact = await call(h, "POST", "/api/v1/images", {
      auth: key,
      json: { data_base64: b64(small), filename: "😀".repeat(255) },
    });
    expect(exact.status, JSON.stringify(exact.body)).toBe(201);
    expect(exact.body.filename).toBe("😀".repeat(255));
    const cut = await call(h, "POST", "/api/v1/images", { auth: key, form: form(small, "😀".repeat(300)) });
    expect(cut.status, JSON.stringify(cut.body)).toBe(201);
    expect(cut.body.filename).toBe("😀".repeat(255));
  });

  it("names multipart beside JSON when a body is neither", async () => {
    const res = await call(h, "POST", "/api/v1/images", {
      auth: key,
      raw: png(4, 4),
      headers: { "content-type": "image/png" },
    });
    expectError(res, 415, "unsupported_media_type");
    expect(res.body.message).toMatch(/multipart\/form-data/);
  });
});

describe("GET /api/v1/images: list and paging", () => {
  it("pages newest first with limit and cursor, without overlap, and filters by source", async () => {
    const h = makeHarness();
    const key = h.key();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const up = await call(h, "POST", "/api/v1/images", { auth: key, form: form(gif(i + 1, 1), `${i}.gif`) });
      ids.push(up.body.id);
    }
    const gen = await call(h, "POST", "/api/v1/images/generate", {
      auth: key,
      json: { prompt: "p", width: 64, height: 64 },
    });
    const seen: number[] = [];
    let cursor: string | null = null;
    const pages: number[] = [];
    do {
      const q: string = cursor ? `?limit=2&cursor=${cursor}` : "?limit=2";
      const res = await call(h, "GET", `/api/v1/images${q}`, { auth: key });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(["data", "has_more", "next_cursor"]);
      for (const item of res.body.data) expect(Object.keys(item).sort()).toEqual(IMAGE_FIELDS);
      pages.push(res.body.data.length);
      seen.push(...res.body.data.map((i: { id: number }) => i.id));
      expect(res.body.has_more).toBe(res.body.next_cursor !== null);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(pages).toEqual([2, 2, 2]);
    expect(seen).toEqual([gen.body.id, ...ids.reverse()]);

    const generated = await call(h, "GET", "/api/v1/images?source=generated", { auth: key });
    expect(generated.body.data.map((i: { id: number }) => i.id)).toEqual([gen.body.id]);
    const uploads = await call(h, "GET", "/api/v1/images?source=upload&limit=100", { auth: key });
    expect(uploads.body.data).toHaveLength(5);
    expect(uploads.body).toMatchObject({ has_more: false, next_cursor: null });
  });

  it.each(["?limit=0", "?limit=101", "?limit=x", "?cursor=nonsense", "?source=other"])(
    "answers 400 for %s",
    async (q) => {
      const h = makeHarness();
      expectError(await call(h, "GET", `/api/v1/images${q}`, { auth: h.key() }), 400, "validation_failed");
    },
  );

  it("lists nothing for a new account", async () => {
    const h = makeHarness();
    const res = await call(h, "GET", "/api/v1/images", { auth: h.key() });
    expect(res.body).toEqual({ data: [], has_more: false, next_cursor: null });
  });
});

describe("reading, caching and deleting one image", () => {
  it("answers 304 to If-None-Match with the current ETag, and 200 to a stale one", async () => {
    const h = makeHarness();
    const key = h.key();
    const up = await call(h, "POST", "/api/v1/images", { auth: key, json: { data_base64: b64(png(2, 2)) } });
    const path = `/api/v1/images/${up.body.id}/content`;
    const first = await call(h, "GET", path, { auth: key });
    const etag = first.headers.get("etag")!;
    const again = await call(h, "GET", path, { auth: key, headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect(again.headers.get("etag")).toBe(etag);
    const stale = await call(h, "GET", path, { auth: key, headers: { "if-none-match": '"0000", W/"1111"' } });
    expect(stale.status).toBe(200);
    const head = await call(h, "HEAD", path, { auth: key });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("image/png");
    expect(head.bytes.length).toBe(0);
  });

  it("documents the download's ETag, Cache-Control and Content-Disposition, and sends what it documents", async () => {
    const op = contract.document.paths["/api/v1/images/{id}/content"].get as {
      responses: Record<string, { headers: Record<string, unknown> }>;
    };
    expect(Object.keys(op.responses["200"].headers)).toEqual(
      expect.arrayContaining(["ETag", "Cache-Control", "Content-Disposition"]),
    );
    expect(Object.keys(op.responses["304"].headers)).toEqual(expect.arrayContaining(["ETag", "Cache-Control"]));
    const h = makeHarness();
    const key = h.key();
    const up = await call(h, "POST", "/api/v1/images", { auth: key, json: { data_base64: b64(png(2, 2)) } });
    const path = `/api/v1/images/${up.body.id}/content`;
    const get = (headers: Record<string, string> = {}) =>
      h.app.handle(
        new Request(`http://test.local${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } }),
        {
          remoteAddress: "127.0.0.1",
        },
      );
    const full = await get();
    await expect(contract.check("GET", path, full)).resolves.toBeUndefined();
    const notModified = await get({ "if-none-match": full.headers.get("etag")! });
    expect(notModified.status).toBe(304);
    await expect(contract.check("GET", path, notModified)).resolves.toBeUndefined();
    // The description requires them: an answer without one is a drift.
    const without = new Headers(full.headers);
    without.delete("content-disposition");
    await expect(
      contract.check("GET", path, new Response(new Uint8Array(2), { status: 200, headers: without })),
    ).rejects.toThrow(ContractError);
  });

  it("deletes: 200 {id, deleted: true}, then 404 image_not_found everywhere; ids are not reused", async () => {
    const h = makeHarness();
    const key = h.key();
    const up = await call(h, "POST", "/api/v1/images", { auth: key, json: { data_base64: b64(png(2, 2)) } });
    const id = up.body.id;
    const del = await call(h, "DELETE", `/api/v1/images/${id}`, { auth: key });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id, deleted: true });
    for (const [method, path] of [
      ["GET", `/api/v1/images/${id}`],
      ["GET", `/api/v1/images/${id}/content`],
      ["DELETE", `/api/v1/images/${id}`],
    ])
      expectError(await call(h, method, path, { auth: key }), 404, "image_not_found");
    expect((await call(h, "GET", "/api/v1/images", { auth: key })).body.data).toEqual([]);
    const next = await call(h, "POST", "/api/v1/images", { auth: key, json: { data_base64: b64(png(2, 2)) } });
    expect(next.body.id).toBeGreaterThan(id);
  });

  it.each(["abc", "1.5", "-1", "0", "1e3", "99999999999999999999"])(
    "answers 400 validation_failed for the id %s",
    async (id) => {
      const h = makeHarness();
      const key = h.key();
      for (const [method, path] of [
        ["GET", `/api/v1/images/${id}`],
        ["GET", `/api/v1/images/${id}/content`],
        ["DELETE", `/api/v1/images/${id}`],
      ]) {
        const res = await call(h, method, path, { auth: key });
        expectError(res, 400, "validation_failed");
        expect(res.body.details.issues[0].path).toBe("path.id");
      }
    },
  );

  it("answers 404 for an id that never existed", async () => {
    const h = makeHarness();
    expectError(await call(h, "GET", "/api/v1/images/424242", { auth: h.key() }), 404, "image_not_found");
  });
});

describe("accounts and keys", () => {
  it("keeps each account's images to itself: another account gets 404 and an empty list", async () => {
    const h = makeHarness();
    const keyA = h.key();
    const keyB = h.key({ account: h.b.id });
    const up = await call(h, "POST", "/api/v1/images", { auth: keyA, json: { data_base64: b64(png(2, 2)) } });
    const id = up.body.id;
    expectError(await call(h, "GET", `/api/v1/images/${id}`, { auth: keyB }), 404, "image_not_found");
    expectError(await call(h, "GET", `/api/v1/images/${id}/content`, { auth: keyB }), 404, "image_not_found");
    expectError(await call(h, "DELETE", `/api/v1/images/${id}`, { auth: keyB }), 404, "image_not_found");
    expect((await call(h, "GET", "/api/v1/images", { auth: keyB })).body.data).toEqual([]);
    // Still there for its owner.
    expect((await call(h, "GET", `/api/v1/images/${id}`, { auth: keyA })).status).toBe(200);
  });

  it("refuses a read-only key on upload, generate and delete with 403 insufficient_scope; reads are fine", async () => {
    const h = makeHarness();
    const writer = h.key();
    const reader = h.key({ scopes: ["read"] });
    const up = await call(h, "POST", "/api/v1/images", { auth: writer, json: { data_base64: b64(png(2, 2)) } });
    const id = up.body.id;
    const refused = [
      await call(h, "POST", "/api/v1/images", { auth: reader, form: form(png(1, 1), "a.png") }),
      await call(h, "POST", "/api/v1/images", { auth: reader, json: { data_base64: b64(png(1, 1)) } }),
      await call(h, "POST", "/api/v1/images/generate", { auth: reader, json: { prompt: "x" } }),
      await call(h, "DELETE", `/api/v1/images/${id}`, { auth: reader }),
    ];
    for (const res of refused) {
      expectError(res, 403, "insufficient_scope");
      expect(res.body.details.required_scope).toBe("write");
    }
    expect((await call(h, "GET", "/api/v1/images", { auth: reader })).body.data).toHaveLength(1);
    expect((await call(h, "GET", `/api/v1/images/${id}`, { auth: reader })).status).toBe(200);
    expect((await call(h, "GET", `/api/v1/images/${id}/content`, { auth: reader })).status).toBe(200);
  });

  it("is account-level: a key bound to any workspace reaches every image of the account", async () => {
    const h = makeHarness();
    const bound1 = h.key({ workspaceId: h.a.ws1 });
    const bound2 = h.key({ workspaceId: h.a.ws2 });
    const up = await call(h, "POST", "/api/v1/images", { auth: bound1, json: { data_base64: b64(png(2, 2)) } });
    expect(up.status).toBe(201);
    expect((await call(h, "GET", `/api/v1/images/${up.body.id}`, { auth: bound2 })).status).toBe(200);
    expect((await call(h, "DELETE", `/api/v1/images/${up.body.id}`, { auth: bound2 })).status).toBe(200);
  });

  it("works with a web session too, and refuses no credentials with 401", async () => {
    const h = makeHarness();
    const token = await h.login("member@a.test");
    const up = await call(h, "POST", "/api/v1/images", { auth: token, json: { data_base64: b64(png(2, 2)) } });
    expect(up.status).toBe(201);
    expect((await call(h, "GET", "/api/v1/images")).status).toBe(401);
    expect((await call(h, "GET", `/api/v1/images/${up.body.id}/content`)).status).toBe(401);
  });
});

describe("POST /api/v1/images/generate", () => {
  let h: Harness;
  let key: string;
  beforeAll(() => {
    h = makeHarness();
    key = h.key();
  });
  const generate = (json: unknown) => call(h, "POST", "/api/v1/images/generate", { auth: key, json });
  const bytesOf = async (id: number) => (await call(h, "GET", `/api/v1/images/${id}/content`, { auth: key })).bytes;

  it("renders and stores a PNG: 201 with source generated, the prompt and the requested size, which decodes", async () => {
    const res = await generate({ prompt: "  A fox in the snow, golden light  ", width: 320, height: 200, seed: 9 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(IMAGE_FIELDS);
    expect(res.body).toMatchObject({
      filename: "a-fox-in-the-snow-golden-light.png",
      mime_type: "image/png",
      width: 320,
      height: 200,
      source: "generated",
      prompt: "A fox in the snow, golden light",
    });
    const bytes = await bytesOf(res.body.id);
    expect(bytes.length).toBe(res.body.size_bytes);
    const file = readPng(bytes);
    expect(file.chunks.every((c) => c.crcOk)).toBe(true);
    expect([file.width, file.height]).toEqual([320, 200]);
    expect(file.scanlines.length).toBe((320 * 3 + 1) * 200);
  });

  it("is deterministic: the same prompt, size and seed give identical bytes; another prompt or seed does not", async () => {
    const req = { prompt: "deterministic harbour", width: 128, height: 96, seed: 5 };
    const a = await generate(req);
    const b = await generate(req);
    expect(b.body.id).not.toBe(a.body.id);
    const [bytesA, bytesB] = [await bytesOf(a.body.id), await bytesOf(b.body.id)];
    expect(Buffer.compare(bytesA, bytesB)).toBe(0);
    const other = await bytesOf((await generate({ ...req, prompt: "deterministic harbor" })).body.id);
    expect(Buffer.compare(bytesA, other)).not.toBe(0);
    const reseeded = await bytesOf((await generate({ ...req, seed: 6 })).body.id);
    expect(Buffer.compare(bytesA, reseeded)).not.toBe(0);
  });

  it("defaults to 1024 × 1024 and seed 0", async () => {
    const res = await generate({ prompt: "defaults" });
    expect(res.body).toMatchObject({ width: 1024, height: 1024 });
    const explicit = await generate({ prompt: "defaults", width: 1024, height: 1024, seed: 0 });
    expect(Buffer.compare(await bytesOf(res.body.id), await bytesOf(explicit.body.id))).toBe(0);
  });

  it.each([
    { name: "no prompt", json: {} },
    { name: "an empty prompt", json: { prompt: "" } },
    { name: "a blank prompt", json: { prompt: "   " } },
    { name: "a prompt of 1001 characters", json: { prompt: "x".repeat(1001) } },
    { name: "width 63", json: { prompt: "x", width: 63 } },
    { name: "height 2049", json: { prompt: "x", height: 2049 } },
    { name: "a fractional width", json: { prompt: "x", width: 100.5 } },
    { name: "a width as a string", json: { prompt: "x", width: "100" } },
    { name: "a negative seed", json: { prompt: "x", seed: -1 } },
  ])("answers 400 validation_failed for $name", async ({ json }) => {
    expectError(await generate(json), 400, "validation_failed");
  });

  it("accepts the bounds: a 1000-character prompt and 64 × 2048", async () => {
    const res = await generate({ prompt: "y".repeat(1000), width: 64, height: 2048 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ width: 64, height: 2048 });
  });
});
