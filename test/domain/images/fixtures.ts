/** Image files and byte edits shared by the image tests (test/domain/images/). */
import type { ImageType } from "../../../src/domain/images/formats.js";
import { crc32, gif, jpeg, png, webp } from "../../helpers/images.js";

/** The bytes of a Latin-1 string, as a file holds them. */
export const bytesOf = (s: string) => new TextEncoder().encode(s);

/** The character codes of a string, to splice into bytes. */
export const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** A copy of the bytes with the byte at `at` set to `value`. */
export const mutate = (bytes: Uint8Array, at: number, value: number) => {
  const copy = bytes.slice();
  copy[at] = value;
  return copy;
};

/** A copy of the bytes with `insert` inserted at `at`. */
export const splice = (bytes: Uint8Array, at: number, insert: number[]) =>
  Uint8Array.from([...bytes.subarray(0, at), ...insert, ...bytes.subarray(at)]);

/** A 32-bit number as four big-endian bytes. */
export const u32be = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];

/** Every format the service accepts, each with the size it was built with (up to the largest accepted). */
export const SAMPLES: { name: string; bytes: Uint8Array; type: ImageType; width: number; height: number }[] = [
  { name: "PNG", bytes: png(3, 2), type: "image/png", width: 3, height: 2 },
  { name: "PNG, the widest accepted", bytes: png(16_384, 1), type: "image/png", width: 16_384, height: 1 },
  { name: "JPEG baseline (SOF0)", bytes: jpeg(640, 480), type: "image/jpeg", width: 640, height: 480 },
  { name: "JPEG progressive (SOF2)", bytes: jpeg(16_384, 17, 0xc2), type: "image/jpeg", width: 16_384, height: 17 },
  { name: "GIF87a", bytes: gif(5, 7, "87a"), type: "image/gif", width: 5, height: 7 },
  { name: "GIF89a", bytes: gif(300, 16_384), type: "image/gif", width: 300, height: 16_384 },
  { name: "WebP lossy (VP8)", bytes: webp(1000, 750, "lossy"), type: "image/webp", width: 1000, height: 750 },
  { name: "WebP lossless (VP8L)", bytes: webp(16_384, 3, "lossless"), type: "image/webp", width: 16_384, height: 3 },
  { name: "WebP extended (VP8X)", bytes: webp(4000, 3000, "extended"), type: "image/webp", width: 4000, height: 3000 },
  {
    name: "WebP animated (VP8X, ANMF)",
    bytes: webp(640, 480, "animated"),
    type: "image/webp",
    width: 640,
    height: 480,
  },
];

/** Well-formed files whose dimensions are past MAX_IMAGE_SIDE: read by imageSize, refused by inspectImage. */
export const OVERSIZE: { name: string; bytes: Uint8Array; type: ImageType; width: number; height: number }[] = [
  { name: "PNG one pixel too wide", bytes: png(16_385, 1), type: "image/png", width: 16_385, height: 1 },
  { name: "PNG 40,000 wide", bytes: png(40_000, 1), type: "image/png", width: 40_000, height: 1 },
  {
    name: "PNG whose IHDR says 4,294,967,295 wide",
    bytes: readyPngWithIhdr(0xffff_ffff, 1),
    type: "image/png",
    width: 0xffff_ffff,
    height: 1,
  },
  { name: "JPEG 65,535 wide", bytes: jpeg(65_535, 17, 0xc2), type: "image/jpeg", width: 65_535, height: 17 },
  { name: "GIF 65,535 high", bytes: gif(300, 65_535), type: "image/gif", width: 300, height: 65_535 },
  {
    name: "WebP animation on a 2^24-pixel-wide canvas",
    bytes: webp(16_777_216, 9, "animated"),
    type: "image/webp",
    width: 16_777_216,
    height: 9,
  },
];

/** A PNG whose IHDR (with a correct CRC) gives these dimensions. */
export function readyPngWithIhdr(width: number, height: number): Uint8Array {
  const bytes = png(1, 1).slice();
  const view = new DataView(bytes.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  view.setUint32(29, crc32(bytes.subarray(12, 29)));
  return bytes;
}
