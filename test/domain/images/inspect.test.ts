/** imageSize and inspectImage: every format's size, and refusals as values (src/domain/images/inspect.ts). */
import { describe, expect, it } from "vitest";
import { MAX_IMAGE_SIDE } from "../../../src/domain/images/formats.js";
import { imageSize, inspectImage } from "../../../src/domain/images/inspect.js";
import { renderPng } from "../../../src/domain/images/render.js";
import { gif, jpeg, png, webp } from "../../helpers/images.js";
import { mutate, OVERSIZE, readyPngWithIhdr, SAMPLES } from "./fixtures.js";

describe("imageSize: dimensions from each format's header", () => {
  it.each(SAMPLES)("$name is $width × $height", ({ bytes, type, width, height }) => {
    expect(imageSize(bytes, type)).toEqual({ width, height });
    expect(inspectImage(bytes)).toEqual({ ok: true, type, width, height });
  });

  it.each(OVERSIZE)("$name: read as $width × $height, refused as larger than accepted", (f) => {
    expect(imageSize(f.bytes, f.type)).toEqual({ width: f.width, height: f.height });
    expect(inspectImage(f.bytes)).toEqual({
      ok: false,
      reason: "corrupt",
      type: f.type,
      message: `The image is ${f.width} × ${f.height} pixels; at most ${MAX_IMAGE_SIDE} pixels a side are accepted.`,
    });
  });

  it("reads the frame header of a JPEG behind a segment that contains SOF-like bytes", () => {
    // The APP1 segment of jpeg() holds FF C0 … 1×1; a reader that scans for markers instead of skipping would say 1×1.
    expect(imageSize(jpeg(123, 45), "image/jpeg")).toEqual({ width: 123, height: 45 });
  });

  it("reads the header of the PNGs the engine renders", () => {
    expect(inspectImage(renderPng({ prompt: "x", width: 70, height: 90, seed: 1 }))).toEqual({
      ok: true,
      type: "image/png",
      width: 70,
      height: 90,
    });
  });
});

describe("truncated and corrupt headers are refused as corrupt, never thrown", () => {
  const cases: { name: string; bytes: Uint8Array }[] = [
    { name: "PNG signature only", bytes: png(3, 2).subarray(0, 8) },
    { name: "PNG cut inside IHDR", bytes: png(3, 2).subarray(0, 20) },
    { name: "PNG whose IHDR CRC does not match", bytes: mutate(png(3, 2), 17, 0x7f) },
    { name: "PNG whose first chunk is not IHDR", bytes: mutate(png(3, 2), 12, "X".charCodeAt(0)) },
    { name: "PNG with a zero width", bytes: (() => readyPngWithIhdr(0, 5))() },
    { name: "JPEG SOI and nothing else", bytes: Uint8Array.from([0xff, 0xd8, 0xff]) },
    { name: "JPEG cut before its frame header", bytes: jpeg(640, 480).subarray(0, 110) },
    { name: "JPEG cut inside its frame header", bytes: jpeg(640, 480).subarray(0, 116) },
    {
      name: "JPEG with SOS before any SOF",
      bytes: Uint8Array.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x08, 1, 1, 0, 0, 63, 0]),
    },
    { name: "JPEG with EOI before any SOF", bytes: Uint8Array.from([0xff, 0xd8, 0xff, 0xd9]) },
    // An APPn of length 1 is skipped (jdmarker.c get_interesting_appn, skip_variable: nothing past the length's two
    // bytes when the length less 2 is not above 0); a DQT of length 1 is refused (get_dqt: "Bogus marker length").
    { name: "JPEG with a DQT length below 2", bytes: Uint8Array.from([0xff, 0xd8, 0xff, 0xdb, 0x00, 0x01, 0, 0]) },
    {
      // libjpeg-turbo skips the garbage (next_marker) but then finds no marker.
      name: "JPEG with garbage where a marker belongs and no marker after it",
      bytes: Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x02, 0x12, 0x34]),
    },
    { name: "JPEG with a zero height", bytes: jpeg(10, 0) },
    { name: "GIF signature only", bytes: gif(5, 7).subarray(0, 6) },
    { name: "GIF with a zero-size screen", bytes: gif(0, 0) },
    { name: "WebP cut after the RIFF header", bytes: webp(10, 10, "lossy").subarray(0, 12) },
    { name: "WebP whose RIFF size claims more than was sent", bytes: webp(10, 10, "lossless").subarray(0, 24) },
    { name: "WebP with an unknown first chunk", bytes: mutate(webp(10, 10, "lossy"), 15, "Z".charCodeAt(0)) },
    { name: "WebP VP8 without its start code", bytes: mutate(webp(10, 10, "lossy"), 23, 0) },
    { name: "WebP VP8 that is not a key frame", bytes: mutate(webp(10, 10, "lossy"), 20, 0x51) },
    { name: "WebP VP8L without its signature", bytes: mutate(webp(10, 10, "lossless"), 20, 0) },
  ];

  it.each(cases)("$name", ({ bytes }) => {
    const result = inspectImage(bytes);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason).toBe("corrupt");
      expect(result.message.length).toBeGreaterThan(10);
    }
  });

  it("never throws on any prefix or any single-byte change of a valid file", () => {
    for (const { bytes } of [...SAMPLES, ...OVERSIZE]) {
      for (let n = 0; n <= Math.min(bytes.length, 200); n++)
        expect(() => inspectImage(bytes.subarray(0, n))).not.toThrow();
      for (let i = 0; i < Math.min(bytes.length, 64); i++)
        for (const value of [0x00, 0xff, bytes[i] ^ 0x55])
          expect(() => inspectImage(mutate(bytes, i, value))).not.toThrow();
    }
  });
});
