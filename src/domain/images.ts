/**
 * Images: recognising a file's type by its bytes alone, reading its dimensions from the format's header, and the
 * builtin engine that renders a deterministic PNG from a prompt (encoded here with node:zlib).
 */
import { createHash } from "node:crypto";
import { crc32, deflateSync } from "node:zlib";

/** The largest image accepted, in bytes of the image itself (DESIGN §3). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/** The image types the service stores; nothing else is accepted. */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

/** One of IMAGE_TYPES. */
export type ImageType = (typeof IMAGE_TYPES)[number];

/** What inspecting a file's bytes found: a known image with its size, or why it is refused. */
export type Inspection =
  | { ok: true; type: ImageType; width: number; height: number }
  | { ok: false; reason: "unsupported"; message: string }
  | { ok: false; reason: "corrupt"; type: ImageType | null; message: string };

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, prefix: number[] | string, at = 0): boolean {
  const want = typeof prefix === "string" ? [...prefix].map((c) => c.charCodeAt(0)) : prefix;
  if (bytes.length < at + want.length) return false;
  return want.every((b, i) => bytes[at + i] === b);
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

/**
 * The image type named by the file's leading bytes (its magic number), or null. The file name and any claimed
 * Content-Type are never consulted: only this decides what a file is.
 */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  if (startsWith(bytes, PNG_SIGNATURE)) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, "GIF87a") || startsWith(bytes, "GIF89a")) return "image/gif";
  if (startsWith(bytes, "RIFF") && startsWith(bytes, "WEBP", 8)) return "image/webp";
  return null;
}

/** A header that is truncated or does not follow its format; the message says what is wrong. */
export class ImageHeaderError extends Error {}

function corrupt(message: string): never {
  throw new ImageHeaderError(message);
}

/** Bounds-checked little- and big-endian reads that report truncation instead of reading past the end. */
class Reader {
  constructor(
    readonly bytes: Uint8Array,
    readonly format: string,
  ) {}
  need(end: number): void {
    if (end > this.bytes.length) corrupt(`Truncated ${this.format} header.`);
  }
  u8(at: number): number {
    this.need(at + 1);
    return this.bytes[at];
  }
  u16be(at: number): number {
    this.need(at + 2);
    return (this.bytes[at] << 8) | this.bytes[at + 1];
  }
  u16le(at: number): number {
    this.need(at + 2);
    return this.bytes[at] | (this.bytes[at + 1] << 8);
  }
  u24le(at: number): number {
    this.need(at + 3);
    return this.bytes[at] | (this.bytes[at + 1] << 8) | (this.bytes[at + 2] << 16);
  }
  u32be(at: number): number {
    this.need(at + 4);
    return (
      ((this.bytes[at] << 24) >>> 0) + ((this.bytes[at + 1] << 16) | (this.bytes[at + 2] << 8) | this.bytes[at + 3])
    );
  }
  u32le(at: number): number {
    this.need(at + 4);
    return (
      ((this.bytes[at + 3] << 24) >>> 0) + ((this.bytes[at + 2] << 16) | (this.bytes[at + 1] << 8) | this.bytes[at])
    );
  }
}

type Size = { width: number; height: number };

const PNG_COLOUR_DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

/** PNG: the IHDR chunk that must follow the signature (its CRC included). */
function pngSize(bytes: Uint8Array): Size {
  const r = new Reader(bytes, "PNG");
  r.need(33);
  if (r.u32be(8) !== 13 || ascii(bytes, 12, 4) !== "IHDR") corrupt("The PNG does not start with an IHDR chunk.");
  if (crc32(bytes.subarray(12, 29)) !== r.u32be(29)) corrupt("The PNG's IHDR chunk fails its CRC check.");
  const width = r.u32be(16);
  const height = r.u32be(20);
  const depth = r.u8(24);
  const colour = r.u8(25);
  if (!PNG_COLOUR_DEPTHS[colour]?.includes(depth)) corrupt("The PNG's IHDR names an invalid bit depth or colour type.");
  if (r.u8(26) !== 0 || r.u8(27) !== 0 || r.u8(28) > 1) corrupt("The PNG's IHDR names an unknown method.");
  return { width, height };
}

// Start-of-frame markers carry the frame's size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** JPEG: walks the marker segments after SOI to the first SOFn, skipping every other segment by its length. */
function jpegSize(bytes: Uint8Array): Size {
  const r = new Reader(bytes, "JPEG");
  let at = 2;
  for (;;) {
    if (r.u8(at) !== 0xff) corrupt("The JPEG has a malformed marker segment.");
    // Any number of 0xFF fill bytes may precede a marker.
    while (r.u8(at + 1) === 0xff) at += 1;
    const marker = r.u8(at + 1);
    at += 2;
    // Markers without a length field.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if (marker === 0xd8 || marker === 0xd9 || marker === 0xda || marker === 0x00)
      corrupt("The JPEG has no frame header (SOFn) before its image data.");
    const length = r.u16be(at);
    if (length < 2) corrupt("The JPEG has a marker segment with an invalid length.");
    if (JPEG_SOF.has(marker)) {
      if (length < 8) corrupt("The JPEG's frame header is too short.");
      return { height: r.u16be(at + 3), width: r.u16be(at + 5) };
    }
    at += length;
  }
}

/** GIF: the logical screen descriptor after the six-byte signature. */
function gifSize(bytes: Uint8Array): Size {
  const r = new Reader(bytes, "GIF");
  r.need(13);
  return { width: r.u16le(6), height: r.u16le(8) };
}

/** WebP: the first chunk of the RIFF container, VP8 (lossy), VP8L (lossless) or VP8X (extended). */
function webpSize(bytes: Uint8Array): Size {
  const r = new Reader(bytes, "WebP");
  const riffSize = r.u32le(4);
  if (riffSize + 8 > bytes.length) corrupt("Truncated WebP file: the RIFF header claims more bytes than were sent.");
  const chunk = ascii(bytes, 12, 4);
  r.need(20);
  switch (chunk) {
    case "VP8 ": {
      // A key frame: 3-byte frame tag (bit 0 clear), start code 9D 01 2A, then 14-bit width and height.
      if ((r.u8(20) & 1) !== 0) corrupt("The WebP VP8 bitstream does not start with a key frame.");
      if (r.u8(23) !== 0x9d || r.u8(24) !== 0x01 || r.u8(25) !== 0x2a) corrupt("The WebP VP8 start code is missing.");
      return { width: r.u16le(26) & 0x3fff, height: r.u16le(28) & 0x3fff };
    }
    case "VP8L": {
      // Signature 0x2F, then 14 bits of width - 1 and 14 bits of height - 1, little-endian.
      if (r.u8(20) !== 0x2f) corrupt("The WebP VP8L signature is missing.");
      const bits = r.u32le(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    case "VP8X": {
      // Flags and reserved bytes, then 24-bit canvas width - 1 and height - 1.
      r.need(30);
      return { width: r.u24le(24) + 1, height: r.u24le(27) + 1 };
    }
    default:
      return corrupt("The WebP file does not start with a VP8, VP8L or VP8X chunk.");
  }
}

const SIZE_READERS: Record<ImageType, (bytes: Uint8Array) => Size> = {
  "image/png": pngSize,
  "image/jpeg": jpegSize,
  "image/gif": gifSize,
  "image/webp": webpSize,
};

/** Reads the width and height of an image of a known type from its header; throws ImageHeaderError. */
export function imageSize(bytes: Uint8Array, type: ImageType): Size {
  const size = SIZE_READERS[type](bytes);
  if (size.width < 1 || size.height < 1) corrupt("The image header gives a width or height of zero.");
  return size;
}

/** Recognises an image by its bytes and reads its dimensions; never throws. */
export function inspectImage(bytes: Uint8Array): Inspection {
  const type = sniffImageType(bytes);
  if (type === null)
    return { ok: false, reason: "unsupported", message: "The file is not a PNG, JPEG, GIF or WebP image." };
  try {
    return { ok: true, type, ...imageSize(bytes, type) };
  } catch (err) {
    if (err instanceof ImageHeaderError) return { ok: false, reason: "corrupt", type, message: err.message };
    throw err;
  }
}

/** Base64 of the standard or URL-safe alphabet, without whitespace. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** An upload as it arrives: a file part's bytes, or data_base64's text. */
export type UploadData = { bytes: Uint8Array } | { base64: string };

/** What reading an upload found: the image with its bytes and their SHA-256, or why it is refused. */
export type Upload =
  | { ok: true; type: ImageType; width: number; height: number; bytes: Uint8Array; sha256: string }
  | { ok: false; reason: "too_large"; size: number }
  | { ok: false; reason: "unsupported" | "invalid"; message: string };

/**
 * Decodes, checks and hashes an upload: base64 (standard or URL-safe alphabet; whitespace and a data: URL prefix
 * are ignored) is held to MAX_IMAGE_BYTES before it is decoded; then the size, the type (by magic number) and the
 * header's dimensions. A worker pool task: for a 10 MiB image this work held the HTTP thread 30-90 ms.
 */
export function readUpload(data: UploadData): Upload {
  let bytes: Uint8Array;
  if ("base64" in data) {
    const text = data.base64.replace(/^data:[^,]*;base64,/i, "");
    // Most base64 comes without line breaks: the check tells at once, and a copy without whitespace is made only when
    // it fails (10 ms for 10 MiB).
    const plain = BASE64.test(text);
    const compact = plain ? text : text.replace(/\s+/g, "");
    // Trailing padding counted from the end: /=+$/ retried from every "=" of a long run (quadratic: 4 s for 100,000).
    let digits = compact.length;
    while (digits > 0 && compact.charCodeAt(digits - 1) === 61) digits--;
    // Refuse an oversize image before decoding it.
    const size = Math.floor((digits * 3) / 4);
    if (size > MAX_IMAGE_BYTES) return { ok: false, reason: "too_large", size };
    if (!(plain || BASE64.test(compact)) || digits % 4 === 1)
      return { ok: false, reason: "invalid", message: "Not valid base64." };
    bytes = Buffer.from(compact, "base64");
  } else bytes = data.bytes;
  if (bytes.byteLength > MAX_IMAGE_BYTES) return { ok: false, reason: "too_large", size: bytes.byteLength };
  if (bytes.byteLength === 0) return { ok: false, reason: "invalid", message: "The file is empty." };
  const found = inspectImage(bytes);
  if (!found.ok)
    return { ok: false, reason: found.reason === "unsupported" ? "unsupported" : "invalid", message: found.message };
  return { ...found, bytes, sha256: sha256Hex(bytes) };
}

/** The usual file extension of an image type. */
export function extensionOf(type: ImageType): string {
  return { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp" }[type];
}

/** The lowercase hexadecimal SHA-256 of some bytes (the ETag of an image's content). */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/* ---------------------------------------------------------------------------------------------------------------
 * PNG encoding
 * ------------------------------------------------------------------------------------------------------------- */

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "latin1");
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * Encodes 8-bit RGB scanlines as a PNG. `scanlines` holds `height` rows of one filter-type byte (left 0) followed by
 * `width * 3` bytes; the rows are filtered in place (Sub, which suits smooth gradients) before deflating.
 */
export function encodeRgbPng(width: number, height: number, scanlines: Uint8Array): Buffer {
  const stride = width * 3 + 1;
  if (scanlines.length !== stride * height) throw new RangeError("scanlines do not match width and height");
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    scanlines[row] = 1;
    // Right to left, so that each byte's left neighbour is still unfiltered when it is read.
    for (let i = row + stride - 1; i > row + 3; i--) scanlines[i] = (scanlines[i] - scanlines[i - 3]) & 0xff;
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  return Buffer.concat([
    Buffer.from(PNG_SIGNATURE),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(scanlines, { level: 6 })),
    chunk("IEND", new Uint8Array(0)),
  ]);
}

/* ---------------------------------------------------------------------------------------------------------------
 * The builtin image engine
 * ------------------------------------------------------------------------------------------------------------- */

/** What the builtin engine renders from. */
export interface RenderRequest {
  prompt: string;
  width: number;
  height: number;
  seed: number;
}

/** Limits and defaults of generated images. */
export const RENDER_LIMITS = { minSide: 64, maxSide: 2048, defaultSide: 1024, maxPromptChars: 1000 } as const;

type Rgb = [number, number, number];

/** sfc32: a small, fast PRNG whose whole state comes from the prompt's hash. */
function prng(seedBytes: Buffer): () => number {
  let a = seedBytes.readUInt32LE(0);
  let b = seedBytes.readUInt32LE(4);
  let c = seedBytes.readUInt32LE(8);
  let d = seedBytes.readUInt32LE(12);
  const next = () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

function hsl(h: number, s: number, l: number): Rgb {
  const hue = (((h % 360) + 360) % 360) / 360;
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const channel = (t: number) => {
    const x = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    if (x < 1 / 6) return p + (q - p) * 6 * x;
    if (x < 1 / 2) return q;
    if (x < 2 / 3) return p + (q - p) * (2 / 3 - x) * 6;
    return p;
  };
  return [channel(hue + 1 / 3) * 255, channel(hue) * 255, channel(hue - 1 / 3) * 255];
}

// Words of a prompt that pull the palette towards a colour: [hue, saturation, lightness].
const COLOUR_WORDS: Record<string, [number, number, number]> = {
  red: [0, 0.75, 0.5],
  crimson: [348, 0.8, 0.42],
  scarlet: [5, 0.85, 0.48],
  coral: [12, 0.8, 0.62],
  orange: [28, 0.9, 0.55],
  amber: [40, 0.95, 0.5],
  gold: [45, 0.85, 0.52],
  golden: [45, 0.85, 0.52],
  yellow: [55, 0.9, 0.58],
  lime: [90, 0.7, 0.5],
  green: [125, 0.55, 0.42],
  emerald: [145, 0.65, 0.4],
  mint: [155, 0.5, 0.72],
  teal: [178, 0.6, 0.38],
  turquoise: [174, 0.65, 0.52],
  cyan: [186, 0.75, 0.5],
  blue: [218, 0.7, 0.5],
  navy: [225, 0.6, 0.24],
  indigo: [250, 0.55, 0.38],
  violet: [272, 0.55, 0.55],
  purple: [282, 0.5, 0.45],
  lavender: [265, 0.5, 0.78],
  magenta: [305, 0.75, 0.52],
  pink: [335, 0.75, 0.72],
  rose: [345, 0.65, 0.6],
  brown: [25, 0.45, 0.32],
  black: [230, 0.15, 0.08],
  white: [40, 0.25, 0.95],
  gray: [220, 0.08, 0.55],
  grey: [220, 0.08, 0.55],
  sunset: [18, 0.85, 0.55],
  sunrise: [35, 0.85, 0.62],
  fire: [10, 0.9, 0.5],
  ocean: [200, 0.7, 0.42],
  sea: [195, 0.6, 0.45],
  sky: [205, 0.7, 0.66],
  forest: [135, 0.5, 0.3],
  night: [235, 0.5, 0.16],
  ice: [195, 0.55, 0.85],
  snow: [210, 0.2, 0.93],
  desert: [38, 0.55, 0.66],
  sand: [40, 0.5, 0.72],
};

/** The palette: colours named in the prompt first, then a harmony around the first hue. */
function palette(prompt: string, random: () => number): Rgb[] {
  const named = (prompt.toLowerCase().match(/\p{L}+/gu) ?? [])
    .map((w) => COLOUR_WORDS[w])
    .filter((c): c is [number, number, number] => c !== undefined)
    .slice(0, 3);
  const base = named[0]?.[0] ?? random() * 360;
  const harmony = [
    [0, 30, -30, 60],
    [0, 180, 30, 210],
    [0, 120, 240, 60],
    [0, 150, 210, 30],
  ][Math.floor(random() * 4)];
  const colours: Rgb[] = named.map(([h, s, l]) => hsl(h, s, l));
  for (let i = 0; colours.length < 5; i++) {
    const h = base + harmony[i % 4] + (random() - 0.5) * 16;
    colours.push(hsl(h, 0.45 + random() * 0.4, 0.3 + random() * 0.45));
  }
  return colours;
}

/** Blends a colour over one pixel with coverage `a` (0–1). */
function blend(px: Uint8Array, i: number, c: Rgb, a: number): void {
  px[i] += (c[0] - px[i]) * a;
  px[i + 1] += (c[1] - px[i + 1]) * a;
  px[i + 2] += (c[2] - px[i + 2]) * a;
}

/**
 * Renders the builtin engine's picture for a prompt: a gradient ground and a composition of discs, rings, bars and
 * glows whose colours (named colours in the prompt lead), layout and sizes come from a hash of the prompt and seed.
 * The same request always gives the same bytes; the layout is proportional, so other sizes show the same picture.
 */
export function renderPng(req: RenderRequest): Buffer {
  const { width: w, height: h } = req;
  const digest = createHash("sha256").update(`builtin-image-v1\0${req.seed}\0${req.prompt}`).digest();
  const random = prng(digest);
  const colours = palette(req.prompt, random);
  const stride = w * 3 + 1;
  const raw = new Uint8Array(stride * h);
  // A view whose stores round and clamp, for blending.
  const px = new Uint8ClampedArray(raw.buffer) as unknown as Uint8Array;

  // Ground: a linear gradient between the two darkest-and-lightest pair of the first colours, at a random angle.
  const angle = random() * Math.PI * 2;
  const dx = Math.cos(angle);
  const dy = Math.sin(angle);
  const reach = Math.abs(dx) * w + Math.abs(dy) * h;
  const [g0, g1] = [colours[0], colours[1]].map((c, k) => c.map((v) => v * (k === 0 ? 0.55 : 1.1))) as Rgb[];
  for (let y = 0; y < h; y++) {
    const row = y * stride + 1;
    for (let x = 0; x < w; x++) {
      let t = ((x - w / 2) * dx + (y - h / 2) * dy) / reach + 0.5;
      t = t * t * (3 - 2 * t);
      const i = row + x * 3;
      px[i] = g0[0] + (g1[0] - g0[0]) * t;
      px[i + 1] = g0[1] + (g1[1] - g0[1]) * t;
      px[i + 2] = g0[2] + (g1[2] - g0[2]) * t;
    }
  }

  const side = Math.min(w, h);
  const shapes = 4 + Math.floor(random() * 5);
  for (let s = 0; s < shapes; s++) {
    const kind = random();
    const colour = colours[1 + Math.floor(random() * (colours.length - 1))];
    const alpha = 0.35 + random() * 0.5;
    const cx = random() * w;
    const cy = random() * h;
    const r = side * (0.08 + random() * 0.27);
    // Coverage by signed distance d (negative inside): a one-pixel antialiased edge, or a wide soft glow.
    const feather = kind < 0.2 ? r * 0.9 : 1;
    let reachOut = r + feather;
    let distance: (x: number, y: number) => number;
    if (kind < 0.55) {
      distance = (x, y) => Math.sqrt((x - cx) ** 2 + (y - cy) ** 2) - r;
    } else if (kind < 0.75) {
      const band = r * (0.12 + random() * 0.2);
      distance = (x, y) => Math.abs(Math.sqrt((x - cx) ** 2 + (y - cy) ** 2) - r) - band;
      reachOut = r + band + feather;
    } else {
      const theta = random() * Math.PI;
      const cos = Math.cos(theta);
      const sin = Math.sin(theta);
      const hw = r * (0.6 + random() * 1.4);
      const hh = r * (0.15 + random() * 0.5);
      distance = (x, y) => {
        const u = Math.abs((x - cx) * cos + (y - cy) * sin) - hw;
        const v = Math.abs(-(x - cx) * sin + (y - cy) * cos) - hh;
        return u > 0 && v > 0 ? Math.sqrt(u * u + v * v) : Math.max(u, v);
      };
      reachOut = Math.hypot(hw, hh) + feather;
    }
    const x0 = Math.max(0, Math.floor(cx - reachOut));
    const x1 = Math.min(w - 1, Math.ceil(cx + reachOut));
    const y0 = Math.max(0, Math.floor(cy - reachOut));
    const y1 = Math.min(h - 1, Math.ceil(cy + reachOut));
    for (let y = y0; y <= y1; y++) {
      const row = y * stride + 1;
      for (let x = x0; x <= x1; x++) {
        const d = distance(x + 0.5, y + 0.5);
        if (d >= feather / 2) continue;
        let cover = d <= -feather / 2 ? 1 : 0.5 - d / feather;
        if (feather > 1) cover = cover * cover * (3 - 2 * cover);
        blend(px, row + x * 3, colour, cover * alpha);
      }
    }
  }
  return encodeRgbPng(w, h, raw);
}
