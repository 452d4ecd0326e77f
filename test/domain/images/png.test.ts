/** PNG: the chunk structure a decoder needs (src/domain/images/png.ts). */
import { describe, expect, it } from "vitest";
import { inspectImage } from "../../../src/domain/images/inspect.js";
import { png, pngChunk, pngOf } from "../../helpers/images.js";
import { ascii, mutate, u32be } from "./fixtures.js";

describe("the structure behind the header is checked, as far as a viewer needs it to open the file: PNG", () => {
  // The chunks of a valid 1 × 1 greyscale PNG: IHDR, IDAT, IEND.
  const one = png(1, 1);
  const IHDR = [...one.subarray(8, 33)];
  const IDAT = [...one.subarray(33, one.length - 12)];
  const IEND = pngChunk("IEND", []);
  const paletteIhdr = pngChunk("IHDR", [...u32be(1), ...u32be(1), 8, 3, 0, 0, 0]);
  const text = pngChunk("tEXt", ascii("Comment\0hello"));
  const badCrcText = [...text.slice(0, -1), text[text.length - 1] ^ 1];

  it.each([
    {
      name: "PNG with a palette (PLTE before IDAT)",
      bytes: pngOf(paletteIhdr, pngChunk("PLTE", [0, 0, 0]), IDAT, IEND),
    },
    {
      name: "PNG with an ancillary chunk whose CRC is wrong (decoders drop it)",
      bytes: pngOf(IHDR, badCrcText, IDAT, IEND),
    },
    { name: "PNG with bytes after IEND", bytes: Uint8Array.from([...one, 1, 2, 3]) },
    {
      name: "PNG whose image data is split over IDAT chunks",
      bytes: pngOf(IHDR, pngChunk("IDAT", IDAT.slice(8, 9)), pngChunk("IDAT", IDAT.slice(9, -4)), IEND),
    },
  ])("accepts $name", ({ bytes }) => {
    expect(inspectImage(bytes)).toMatchObject({ ok: true });
  });

  it.each([
    // PNG
    { name: "PNG with no image data (no IDAT)", bytes: pngOf(IHDR, IEND), message: /no image data \(IDAT/ },
    { name: "PNG without IEND", bytes: pngOf(IHDR, IDAT), message: /ends without an IEND/ },
    { name: "PNG cut inside its IDAT", bytes: one.subarray(0, 40), message: /PNG file is truncated/ },
    {
      name: "PNG whose IDAT CRC does not match",
      bytes: mutate(one, one.length - 13, one[one.length - 13] ^ 1),
      message: /IDAT chunk fails its CRC/,
    },
    {
      name: "PNG with an unknown critical chunk",
      bytes: pngOf(IHDR, pngChunk("ABCD", [1]), IDAT, IEND),
      message: /unknown critical chunk \(ABCD\)/,
    },
    {
      name: "PNG with a chunk type that is not letters",
      bytes: pngOf(IHDR, pngChunk("a1c!", [1]), IDAT, IEND),
      message: /not four letters/,
    },
    { name: "palette PNG without PLTE", bytes: pngOf(paletteIhdr, IDAT, IEND), message: /without a PLTE/ },
    {
      name: "PNG with a PLTE of 4 bytes",
      bytes: pngOf(paletteIhdr, pngChunk("PLTE", [0, 0, 0, 0]), IDAT, IEND),
      message: /1 to 256 RGB entries/,
    },
    { name: "PNG whose IDAT chunks are apart", bytes: pngOf(IHDR, IDAT, text, IDAT, IEND), message: /not consecutive/ },
    { name: "PNG with a second IHDR", bytes: pngOf(IHDR, IHDR, IDAT, IEND), message: /more than one IHDR/ },
    {
      name: "PNG whose image data is not zlib",
      bytes: pngOf(IHDR, pngChunk("IDAT", [1, 2, 3, 4]), IEND),
      message: /zlib header/,
    },
    { name: "PNG with an empty IDAT only", bytes: pngOf(IHDR, pngChunk("IDAT", []), IEND), message: /zlib header/ },
    // JPEG
  ])("refuses $name as corrupt, saying what is wrong", ({ bytes, message }) => {
    const result = inspectImage(bytes);
    expect(result).toMatchObject({ ok: false, reason: "corrupt", message: expect.stringMatching(message) });
  });
});
