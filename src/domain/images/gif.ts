/** GIF: the block structure a decoder needs, and the size a viewer shows the file at. */
import { MAX_IMAGE_SIDE } from "./formats.js";
import { corrupt, Reader, type Size } from "./reader.js";

/** The bytes of a GIF colour table announced by a packed field (flag 0x80, size 2^(n+1) entries of 3 bytes). */
function gifColourTable(packed: number): number {
  return packed & 0x80 ? 3 << ((packed & 7) + 1) : 0;
}

/** Skips a GIF sequence of data sub-blocks, each a length byte and that many bytes, up to its empty terminator. */
function gifSubBlocks(r: Reader, at: number): number {
  for (;;) {
    const n = r.u8(at);
    at += 1 + n;
    if (n === 0) return at;
  }
}

/**
 * The size of a GIF, read once its structure is checked. GIF: the logical screen descriptor (its size is the image's)
 * and its colour table, then blocks up to the trailer: extensions, and at least one image descriptor with its colour
 * table, LZW code size and data sub-blocks. The LZW data is not decoded. An image's place and size are not compared
 * with the screen: giflib reads them as they are, browsers crop the image to the screen or (Chrome, for the first)
 * enlarge the screen to it. As Chrome shows such a file as large as its first image reaches, MAX_IMAGE_SIDE applies to
 * where the first image ends as well as to the screen: a 1 × 1 screen holding a 65,535 × 65,535 first image is refused.
 * Later images are cropped to the screen everywhere, so their place is not held to it. A screen side of zero (some
 * encoders write a 0 × 0 screen) is where the first image reaches on that side, its left + width or top + height, as
 * Chrome enlarges the screen to it: a 0 × 0 screen whose first image is 40 × 30 at the corner is a 40 × 30 image.
 */
export function gifSize(bytes: Uint8Array): Size {
  const r = new Reader(bytes, "GIF");
  r.need(13);
  const size = { width: r.u16le(6), height: r.u16le(8) };
  let at = 13 + gifColourTable(r.u8(10));
  let images = 0;
  for (;;) {
    if (at === bytes.length) corrupt("The GIF ends without its trailer.");
    const block = r.u8(at);
    if (block === 0x3b) {
      if (images === 0) corrupt("The GIF has no image (image descriptor) before its trailer.");
      return size;
    }
    if (block === 0x21) {
      // Extension: introducer, label, data sub-blocks.
      r.u8(at + 1);
      at = gifSubBlocks(r, at + 2);
    } else if (block === 0x2c) {
      // Image descriptor: left, top, width, height, packed field; then its colour table and the LZW data.
      if (images === 0) {
        const right = r.u16le(at + 1) + r.u16le(at + 5);
        const bottom = r.u16le(at + 3) + r.u16le(at + 7);
        if (size.width === 0) size.width = right;
        if (size.height === 0) size.height = bottom;
        // (Within the screen, the screen's own size is what inspectImage holds to MAX_IMAGE_SIDE.)
        if ((right > size.width && right > MAX_IMAGE_SIDE) || (bottom > size.height && bottom > MAX_IMAGE_SIDE))
          corrupt(
            `The GIF's first image reaches ${right} × ${bottom} pixels from its screen's corner, and a viewer ` +
              `enlarges the screen to it; at most ${MAX_IMAGE_SIDE} pixels a side are accepted.`,
          );
      }
      at += 10 + gifColourTable(r.u8(at + 9));
      const codeSize = r.u8(at);
      if (codeSize < 1 || codeSize > 11) corrupt("The GIF has an image whose LZW code size is out of range.");
      at = gifSubBlocks(r, at + 1);
      images++;
    } else corrupt("The GIF has an unknown block where an image, an extension or its trailer belongs.");
  }
}
