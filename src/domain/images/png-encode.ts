/** Encoding 8-bit RGB pixels as a PNG (node:zlib deflates the image data). */
import { crc32, deflateSync } from "node:zlib";
import { PNG_SIGNATURE } from "./png.js";

/** One PNG chunk: its length, type, data and the CRC of type and data. */
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
