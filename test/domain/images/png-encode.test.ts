/** encodeRgbPng: RGB scanlines as a PNG (src/domain/images/png-encode.ts). */
import { describe, expect, it } from "vitest";
import { encodeRgbPng } from "../../../src/domain/images/png-encode.js";
import { readPng, unfilterRgb } from "../../helpers/images.js";

describe("encodeRgbPng", () => {
  it("writes a PNG another reader decodes to the same pixels, with valid CRCs", () => {
    const width = 5;
    const height = 4;
    const pixels = Uint8Array.from({ length: width * height * 3 }, (_, i) => (i * 37 + (i % 7) * 11) & 0xff);
    const scanlines = new Uint8Array((width * 3 + 1) * height);
    for (let y = 0; y < height; y++)
      scanlines.set(pixels.subarray(y * width * 3, (y + 1) * width * 3), y * (width * 3 + 1) + 1);
    const file = readPng(encodeRgbPng(width, height, scanlines));
    expect(file.chunks.map((c) => c.type)).toEqual(["IHDR", "IDAT", "IEND"]);
    expect(file.chunks.every((c) => c.crcOk)).toBe(true);
    expect({ width: file.width, height: file.height, bitDepth: file.bitDepth, colourType: file.colourType }).toEqual({
      width,
      height,
      bitDepth: 8,
      colourType: 2,
    });
    expect(unfilterRgb(file.scanlines, width, height)).toEqual(pixels);
  });
});
