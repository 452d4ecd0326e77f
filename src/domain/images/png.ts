/** PNG: the structure a decoder needs, checked chunk by chunk, and the dimensions its IHDR gives. */
import { crc32 } from "node:zlib";
import { ascii, corrupt, Reader, type Size } from "./reader.js";

/** The eight bytes every PNG starts with. */
export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const PNG_COLOUR_DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

/**
 * The size of a PNG, read once its structure is checked. PNG: IHDR right after the signature, then every chunk to IEND,
 * as a decoder such as libpng requires: each chunk whole, critical chunks (IHDR, PLTE, IDAT, IEND) with a correct CRC
 * and no unknown critical chunk (an ancillary chunk's CRC is not checked: decoders drop such a chunk and show the
 * image), a PLTE before the image data of a palette image, one run of IDAT chunks whose data starts with a zlib header,
 * and an IEND. The image data is not inflated.
 */
export function pngSize(bytes: Uint8Array): Size {
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
  let palette = false;
  // IDAT chunks seen: none yet, in the current run, or a run that has ended.
  let idat: "none" | "run" | "ended" = "none";
  const zlibHeader: number[] = [];
  let at = 33;
  for (;;) {
    if (at === bytes.length) corrupt("The PNG ends without an IEND chunk.");
    const length = r.u32be(at);
    if (length > 0x7fffffff) corrupt("The PNG has a chunk longer than 2^31 - 1 bytes.");
    r.need(at + 12 + length);
    const type = ascii(bytes, at + 4, 4);
    if (!/^[A-Za-z]{4}$/.test(type)) corrupt("The PNG has a chunk whose type is not four letters.");
    // Bit 5 of the first letter (lower case) marks an ancillary chunk; upper case a critical one.
    if ((bytes[at + 4] & 0x20) === 0) {
      if (type !== "PLTE" && type !== "IDAT" && type !== "IEND" && type !== "IHDR")
        corrupt(`The PNG has an unknown critical chunk (${type}).`);
      if (crc32(bytes.subarray(at + 4, at + 8 + length)) !== r.u32be(at + 8 + length))
        corrupt(`The PNG's ${type} chunk fails its CRC check.`);
    }
    if (idat === "run" && type !== "IDAT") idat = "ended";
    switch (type) {
      case "IHDR":
        corrupt("The PNG has more than one IHDR chunk.");
        break;
      case "PLTE":
        if (palette || idat !== "none") corrupt("The PNG has a PLTE chunk after its image data or a second one.");
        if (length === 0 || length % 3 !== 0 || length > 768)
          corrupt("The PNG's PLTE chunk does not hold 1 to 256 RGB entries.");
        palette = true;
        break;
      case "IDAT":
        if (idat === "ended") corrupt("The PNG's IDAT chunks are not consecutive.");
        if (colour === 3 && !palette) corrupt("The PNG is a palette image without a PLTE chunk before its image data.");
        idat = "run";
        for (let i = 0; i < length && zlibHeader.length < 2; i++) zlibHeader.push(bytes[at + 8 + i]);
        break;
      case "IEND": {
        if (idat === "none") corrupt("The PNG has no image data (IDAT chunk).");
        if (length !== 0) corrupt("The PNG's IEND chunk is not empty.");
        // Deflate (method 8) with a window of at most 32 KiB, a check value that divides by 31, no preset dictionary.
        const [cmf, flg] = zlibHeader;
        if (zlibHeader.length < 2 || (cmf & 0x0f) !== 8 || cmf >> 4 > 7 || (cmf * 256 + flg) % 31 !== 0 || flg & 0x20)
          corrupt("The PNG's image data does not start with a zlib header.");
        // Bytes after IEND are ignored, as decoders do.
        return { width, height };
      }
    }
    at += 12 + length;
  }
}
