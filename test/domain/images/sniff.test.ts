/** sniffImageType: an image's type by its magic number (src/domain/images/sniff.ts). */
import { describe, expect, it } from "vitest";
import { inspectImage } from "../../../src/domain/images/inspect.js";
import { sniffImageType } from "../../../src/domain/images/sniff.js";
import { bytesOf, SAMPLES } from "./fixtures.js";

describe("sniffImageType: the type comes from the magic number only", () => {
  it.each(SAMPLES)("$name → $type", ({ bytes, type }) => {
    expect(sniffImageType(bytes)).toBe(type);
  });

  it.each([
    { name: "plain text", bytes: bytesOf("hello, this is not a picture\n") },
    { name: "empty", bytes: new Uint8Array(0) },
    { name: "a RIFF WAVE file", bytes: bytesOf("RIFF\x24\x00\x00\x00WAVEfmt ") },
    { name: "BMP", bytes: bytesOf("BM\x3a\x00\x00\x00\x00\x00\x00\x00") },
    { name: "SVG (text, however image-like)", bytes: bytesOf('<svg xmlns="http://www.w3.org/2000/svg"/>') },
    { name: "PDF", bytes: bytesOf("%PDF-1.7\n") },
    { name: "GIF88a (no such version)", bytes: bytesOf("GIF88a\x01\x00\x01\x00\x00\x00\x00;") },
    {
      name: "a PNG signature with one wrong byte",
      bytes: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0b]),
    },
    { name: "JPEG SOI without a following marker", bytes: Uint8Array.from([0xff, 0xd8, 0x00, 0x00]) },
  ])("$name → not an image", ({ bytes }) => {
    expect(sniffImageType(bytes)).toBeNull();
    expect(inspectImage(bytes)).toMatchObject({ ok: false, reason: "unsupported" });
  });
});
