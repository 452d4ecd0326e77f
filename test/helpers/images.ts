/** Tiny valid image files built byte by byte, and an independent PNG reader, for the image tests. */
import { inflateSync } from "node:zlib";

const u16le = (n: number) => [n & 0xff, (n >> 8) & 0xff];
const u16be = (n: number) => [(n >> 8) & 0xff, n & 0xff];
const u24le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff];
const u32le = (n: number) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
const u32be = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const text = (s: string) => [...s].map((c) => c.charCodeAt(0));

// CRC-32 (ISO-HDLC) by table, independent of node:zlib's, so the tests check the encoder against another reading.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 as PNG uses it. */
export function crc32(bytes: Uint8Array | number[]): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A PNG chunk: length, type, data and the CRC of type and data. */
export function pngChunk(type: string, data: number[] | Uint8Array): number[] {
  const body = [...text(type), ...data];
  return [...u32be(data.length), ...body, ...u32be(crc32(body))];
}

/** A PNG of these chunks after the signature, for files built chunk by chunk. */
export function pngOf(...chunks: number[][]): Uint8Array {
  return Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...chunks.flat()]);
}

/** A 1-bit greyscale PNG of any size whose pixels are all black, optionally padded by a private chunk. */
export function png(width: number, height: number, padTo?: number): Uint8Array {
  const rowBytes = Math.ceil(width / 8) + 1;
  const idat = [...storedZlib(new Uint8Array(rowBytes * height))];
  const head = [
    ...[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    ...pngChunk("IHDR", [...u32be(width), ...u32be(height), 1, 0, 0, 0, 0]),
  ];
  const tail = [...pngChunk("IDAT", idat), ...pngChunk("IEND", [])];
  if (padTo === undefined) return Uint8Array.from([...head, ...tail]);
  // An ancillary, private, safe-to-copy chunk ("paDd") that fills the file to exactly padTo bytes.
  const padLength = padTo - head.length - tail.length - 12;
  if (padLength < 0) throw new Error("padTo too small");
  const out = new Uint8Array(padTo);
  out.set(head, 0);
  const chunkStart = head.length;
  out.set(u32be(padLength), chunkStart);
  out.set(text("paDd"), chunkStart + 4);
  // The padding bytes stay zero; the CRC covers type and data.
  const crc = crc32Stream(out.subarray(chunkStart + 4, chunkStart + 8 + padLength));
  out.set(u32be(crc), chunkStart + 8 + padLength);
  out.set(tail, chunkStart + 12 + padLength);
  return out;
}

function crc32Stream(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// A zlib stream of stored (uncompressed) blocks: no dependency on the encoder under test.
function storedZlib(raw: Uint8Array): Uint8Array {
  const out: number[] = [0x78, 0x01];
  for (let at = 0; at < raw.length || at === 0; at += 65535) {
    const block = raw.subarray(at, at + 65535);
    const last = at + 65535 >= raw.length ? 1 : 0;
    out.push(last, ...u16le(block.length), ...u16le(~block.length & 0xffff), ...block);
    if (raw.length === 0) break;
  }
  let a = 1;
  let b = 0;
  for (const byte of raw) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  out.push(...u32be(((b << 16) | a) >>> 0));
  return Uint8Array.from(out);
}

/**
 * A baseline (SOF0) or progressive (SOF2) JPEG header: SOI, an APP0, an APP1 whose payload contains bytes that look
 * like a 1×1 SOF0 (a reader must skip segments by length, not scan for markers), fill bytes, DQT, the frame header,
 * then SOS, a few bytes of scan data and EOI. The baseline file has no DHT (decoders fill in the standard tables 0
 * and 1); the progressive one is laid out as libjpeg-turbo decodes it, since its progressive decoder has no standard
 * tables and checks each scan's parameters: a DHT of the DC tables, a DC first scan of the three components (Ss = Se
 * = 0), then a DHT of AC table 0 and an AC scan (Ss 1 to Se 63) of the first component alone.
 */
export function jpeg(width: number, height: number, sof: 0xc0 | 0xc2 = 0xc0): Uint8Array {
  const segment = (marker: number, payload: number[]) => [0xff, marker, ...u16be(payload.length + 2), ...payload];
  // Huffman tables of one 1-bit code (for symbol 0), one per class/slot byte (0x1n: AC table n).
  const dht = (...indexes: number[]) =>
    segment(
      0xc4,
      indexes.flatMap((index) => [index, 1, ...new Array(15).fill(0), 0]),
    );
  const scans =
    sof === 0xc0
      ? [...segment(0xda, [3, 1, 0, 2, 0x11, 3, 0x11, 0, 63, 0]), 0x12, 0x34]
      : [
          ...dht(0x00, 0x01),
          ...segment(0xda, [3, 1, 0x00, 2, 0x10, 3, 0x10, 0, 0, 0]),
          0x12,
          0x34,
          ...dht(0x10),
          ...segment(0xda, [1, 1, 0x00, 1, 63, 0]),
          0x56,
          0x78,
        ];
  return Uint8Array.from([
    0xff,
    0xd8,
    ...segment(0xe0, [...text("JFIF"), 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...segment(0xe1, [...text("Exif"), 0, 0, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x01, 0x00, 0x01, 0x03]),
    0xff, // a fill byte before the next marker
    ...segment(0xdb, [0, ...new Array(64).fill(1)]),
    // Every component uses quantization table 0, the one the DQT above defines.
    ...segment(sof, [8, ...u16be(height), ...u16be(width), 3, 1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0]),
    ...scans,
    0xff,
    0xd9,
  ]);
}

/**
 * A GIF (87a or 89a): a logical screen of the given size with a two-colour global table, one image descriptor
 * covering it whose LZW data is a clear code, one pixel and the end code (viewers show the rest as background), and
 * the trailer.
 */
export function gif(width: number, height: number, version: "87a" | "89a" = "89a"): Uint8Array {
  return Uint8Array.from([
    ...text(`GIF${version}`),
    ...[...u16le(width), ...u16le(height), 0x80, 0, 0],
    ...[0, 0, 0, 0xff, 0xff, 0xff],
    ...[0x2c, ...u16le(0), ...u16le(0), ...u16le(width), ...u16le(height), 0],
    ...[2, 2, 0x44, 0x01, 0],
    0x3b,
  ]);
}

/** A RIFF chunk: type, little-endian size, payload and a padding byte to an even length. */
export function riffChunk(chunkType: string, payload: number[]): number[] {
  return [...text(chunkType), ...u32le(payload.length), ...payload, ...(payload.length % 2 ? [0] : [])];
}

/** A WebP RIFF container of these chunks. */
export function riff(...chunks: number[][]): Uint8Array {
  const body = chunks.flat();
  return Uint8Array.from([...text("RIFF"), ...u32le(4 + body.length), ...text("WEBP"), ...body]);
}

/** A VP8L (lossless) chunk whose header gives this size (1 to 16,384 a side). */
export function vp8l(width: number, height: number): number[] {
  const bits = ((width - 1) | ((height - 1) << 14)) >>> 0;
  return riffChunk("VP8L", [0x2f, ...u32le(bits), 0, 0, 0]);
}

/**
 * A WebP: lossy (a VP8 key frame header), lossless (VP8L), extended (a VP8X canvas and a VP8L image of its size, at
 * most 16,384 a side) or animated (a VP8X canvas of any size up to 2^24 a side, ANIM, and one 1 × 1 ANMF frame).
 */
export function webp(width: number, height: number, kind: "lossy" | "lossless" | "extended" | "animated"): Uint8Array {
  // Frame tag: key frame, version 0, shown, a first partition of 1 byte.
  if (kind === "lossy")
    return riff(riffChunk("VP8 ", [0x30, 0x00, 0x00, 0x9d, 0x01, 0x2a, ...u16le(width), ...u16le(height), 0, 0, 0, 0]));
  if (kind === "lossless") return riff(vp8l(width, height));
  const canvas = [...u24le(width - 1), ...u24le(height - 1)];
  if (kind === "extended") return riff(riffChunk("VP8X", [0x10, 0, 0, 0, ...canvas]), vp8l(width, height));
  return riff(
    riffChunk("VP8X", [0x02, 0, 0, 0, ...canvas]),
    riffChunk("ANIM", [0, 0, 0, 0, 0, 0]),
    riffChunk("ANMF", [...u24le(0), ...u24le(0), ...u24le(0), ...u24le(0), ...u24le(100), 0, ...vp8l(1, 1)]),
  );
}

/** One chunk of a PNG as read back. */
export interface PngChunk {
  type: string;
  data: Uint8Array;
  crcOk: boolean;
}

/** Reads a PNG: signature, every chunk with its CRC checked, IHDR fields and the inflated scanlines. */
export function readPng(bytes: Uint8Array) {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (!signature.every((b, i) => bytes[i] === b)) throw new Error("not a PNG signature");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: PngChunk[] = [];
  let at = 8;
  while (at < bytes.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const data = bytes.subarray(at + 8, at + 8 + length);
    const crc = view.getUint32(at + 8 + length);
    chunks.push({ type, data, crcOk: crc32Stream(bytes.subarray(at + 4, at + 8 + length)) === crc });
    at += 12 + length;
  }
  const ihdr = chunks[0];
  const ihdrView = new DataView(ihdr.data.buffer, ihdr.data.byteOffset, ihdr.data.byteLength);
  const idat = Buffer.concat(chunks.filter((c) => c.type === "IDAT").map((c) => c.data));
  return {
    chunks,
    width: ihdrView.getUint32(0),
    height: ihdrView.getUint32(4),
    bitDepth: ihdr.data[8],
    colourType: ihdr.data[9],
    scanlines: new Uint8Array(inflateSync(idat)),
  };
}

/** Undoes PNG filters (types 0–4) for 8-bit RGB scanlines; returns width × height × 3 bytes. */
export function unfilterRgb(scanlines: Uint8Array, width: number, height: number): Uint8Array {
  const bpp = 3;
  const stride = width * bpp;
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = scanlines[y * (stride + 1)];
    const src = scanlines.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? out[y * stride + i - bpp] : 0;
      const b = y > 0 ? out[(y - 1) * stride + i] : 0;
      const c = i >= bpp && y > 0 ? out[(y - 1) * stride + i - bpp] : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0) throw new Error(`bad filter type ${filter}`);
      out[y * stride + i] = (src[i] + predictor) & 0xff;
    }
  }
  return out;
}
