import { describe, expect, it } from "vitest";
import {
  encodeRgbPng,
  type ImageType,
  imageSize,
  inspectImage,
  MAX_IMAGE_SIDE,
  renderPng,
  sniffImageType,
} from "../../src/domain/images.js";
import {
  crc32,
  gif,
  jpeg,
  png,
  pngChunk,
  pngOf,
  readPng,
  riff,
  riffChunk,
  unfilterRgb,
  vp8l,
  webp,
} from "../helpers/images.js";

const bytesOf = (s: string) => new TextEncoder().encode(s);

/** Every format the service accepts, each with the size it was built with (up to the largest accepted). */
const SAMPLES: { name: string; bytes: Uint8Array; type: ImageType; width: number; height: number }[] = [
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
const OVERSIZE: { name: string; bytes: Uint8Array; type: ImageType; width: number; height: number }[] = [
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
  const mutate = (bytes: Uint8Array, at: number, value: number) => {
    const copy = bytes.slice();
    copy[at] = value;
    return copy;
  };
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

describe("the structure behind the header is checked, as far as a viewer needs it to open the file", () => {
  const mutate = (bytes: Uint8Array, at: number, value: number) => {
    const copy = bytes.slice();
    copy[at] = value;
    return copy;
  };
  const splice = (bytes: Uint8Array, at: number, insert: number[]) =>
    Uint8Array.from([...bytes.subarray(0, at), ...insert, ...bytes.subarray(at)]);
  /** Where a two-byte marker last occurs (JPEG markers; the APP1 of jpeg() holds a decoy FF C0). */
  const lastMarker = (bytes: Uint8Array, marker: number) => {
    for (let i = bytes.length - 2; i >= 0; i--) if (bytes[i] === 0xff && bytes[i + 1] === marker) return i;
    throw new Error("no such marker");
  };
  const u32be = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
  const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

  // The chunks of a valid 1 × 1 greyscale PNG: IHDR, IDAT, IEND.
  const one = png(1, 1);
  const IHDR = [...one.subarray(8, 33)];
  const IDAT = [...one.subarray(33, one.length - 12)];
  const IEND = pngChunk("IEND", []);
  const paletteIhdr = pngChunk("IHDR", [...u32be(1), ...u32be(1), 8, 3, 0, 0, 0]);
  const text = pngChunk("tEXt", ascii("Comment\0hello"));
  const badCrcText = [...text.slice(0, -1), text[text.length - 1] ^ 1];

  const jpg = jpeg(64, 48);
  const sof = lastMarker(jpg, 0xc0);
  const sos = lastMarker(jpg, 0xda);
  const gif1 = gif(5, 7);

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
    { name: "JPEG with bytes after EOI", bytes: Uint8Array.from([...jpg, 0, 0, 0]) },
    {
      name: "JPEG whose scan data holds stuffed bytes, restart markers and fill bytes",
      bytes: splice(jpg, jpg.length - 2, [0xff, 0x00, 0xff, 0xd0, 0x55, 0xff, 0xff, 0xd1]),
    },
    {
      name: "GIF with a comment extension before its image",
      bytes: splice(gif1, 19, [0x21, 0xfe, 3, ...ascii("abc"), 0]),
    },
    { name: "WebP with bytes after its RIFF container", bytes: Uint8Array.from([...webp(3, 3, "lossless"), 9, 9]) },
  ])("accepts $name", ({ bytes }) => {
    expect(inspectImage(bytes)).toMatchObject({ ok: true });
  });

  // Markers as libjpeg-turbo reads them (jdmarker.c read_markers): APPn, COM and DNL are skipped by their length, TEM
  // and RSTn have none; JPG (FFC8) is refused with the hierarchical frames (JERR_SOF_UNSUPPORTED), and DHP, EXP, JPGn
  // (FFF0–FFFD) and RESn (FF02–FFBF) as unknown (JERR_UNKNOWN_MARKER), whatever their length says.
  const segmentAt = (at: number, marker: number) => splice(jpg, at, [0xff, marker, 0, 4, 0x12, 0x34]);
  it.each([
    { name: "APP15 (FFEF)", marker: 0xef },
    { name: "COM (FFFE)", marker: 0xfe },
    { name: "DNL (FFDC)", marker: 0xdc },
  ])("accepts a JPEG with a $name segment before its frame header and after its scan", ({ marker }) => {
    expect(inspectImage(segmentAt(sof, marker))).toEqual({ ok: true, type: "image/jpeg", width: 64, height: 48 });
    expect(inspectImage(segmentAt(jpg.length - 2, marker))).toMatchObject({ ok: true, width: 64 });
  });

  // An APPn, COM or DNL segment whose length is 0 or 1 is skipped without error: jdmarker.c skip_variable (COM, DNL,
  // APPn by default), get_interesting_appn (APP0, APP14) and save_marker (the APPn a browser keeps, such as EXIF and
  // ICC) take 2 from the length and skip only what is above 0, so the next marker is looked for right after the
  // length's two bytes.
  it.each([
    { name: "APP0 (FFE0)", marker: 0xe0 },
    { name: "APP1 (FFE1)", marker: 0xe1 },
    { name: "APP14 (FFEE)", marker: 0xee },
    { name: "COM (FFFE)", marker: 0xfe },
    { name: "DNL (FFDC)", marker: 0xdc },
  ])("accepts a JPEG with a $name segment of length 0 or 1, reading on right after its length", ({ marker }) => {
    for (const length of [0, 1]) {
      expect(inspectImage(splice(jpg, sof, [0xff, marker, 0, length]))).toEqual({
        ok: true,
        type: "image/jpeg",
        width: 64,
        height: 48,
      });
      expect(inspectImage(splice(jpg, jpg.length - 2, [0xff, marker, 0, length]))).toMatchObject({ ok: true });
      // What follows the length is junk to next_marker, not the segment's.
      expect(inspectImage(splice(jpg, sof, [0xff, marker, 0, length, 0x45, 0x78]))).toMatchObject({ ok: true });
      expect(inspectImage(splice(jpg, sof, [0xff, marker, 0, length, 0xff, 0xc8, 0, 4, 0, 0]))).toMatchObject({
        ok: false,
        message: "The JPEG has a reserved marker (0xFFC8), which browsers refuse.",
      });
    }
  });

  // Every other segment libjpeg-turbo reads refuses a length below 2: get_dqt, get_dht and get_dac find it short of 0
  // once 2 is taken, get_sof, get_sos and get_dri find it does not fit (JERR_BAD_LENGTH, "Bogus marker length").
  it.each([
    { name: "DQT (FFDB)", marker: 0xdb },
    { name: "DHT (FFC4)", marker: 0xc4 },
    { name: "DAC (FFCC)", marker: 0xcc },
    { name: "DRI (FFDD)", marker: 0xdd },
    { name: "SOF0 (FFC0)", marker: 0xc0 },
    { name: "SOS (FFDA)", marker: 0xda },
  ])("refuses a JPEG with a $name segment of length 0 or 1", ({ marker }) => {
    for (const length of [0, 1])
      expect(inspectImage(splice(jpg, sos, [0xff, marker, 0, length]))).toEqual({
        ok: false,
        reason: "corrupt",
        type: "image/jpeg",
        message: "The JPEG has a marker segment with an invalid length.",
      });
  });

  it("accepts a JPEG with a TEM marker (FF01, no length) before its frame header", () => {
    expect(inspectImage(splice(jpg, sof, [0xff, 0x01]))).toMatchObject({ ok: true, width: 64 });
  });

  // libjpeg-turbo finds every marker after SOI with jdmarker.c next_marker, which skips bytes other than 0xFF and
  // stuffed FF 00 pairs before it with a warning only (JWRN_EXTRANEOUS_DATA), and fill bytes (repeated 0xFF).
  const com = [0xff, 0xfe, 0, 4, 0x61, 0x62];
  it.each([
    { name: "bytes other than 0xFF between two marker segments", bytes: splice(jpg, sof, [0x12, 0x34, 0x00]) },
    {
      name: "stuffed FF 00 pairs and fill bytes between two marker segments",
      bytes: splice(jpg, sof, [0xff, 0x00, 0x55, 0xff, 0xff, 0x00, 0xff, 0xff]),
    },
    { name: "junk right after SOI", bytes: splice(jpg, 2, [0xff, 0x00, 0x12, 0x34]) },
    { name: "junk after a segment that follows the scan", bytes: splice(jpg, jpg.length - 2, [...com, 0x99, 0xff, 0]) },
  ])("accepts a JPEG with $name, as libjpeg-turbo skips them", ({ bytes }) => {
    expect(inspectImage(bytes)).toEqual({ ok: true, type: "image/jpeg", width: 64, height: 48 });
  });

  it.each([
    {
      name: "junk that runs to the end of the file",
      bytes: Uint8Array.from([...jpg.subarray(0, sof), 0x12, 0xff, 0x00, 0x34]),
      message: "The JPEG file is truncated.",
    },
    {
      name: "junk before a marker libjpeg-turbo refuses",
      bytes: splice(jpg, sof, [0x12, 0xff, 0x00, 0xff, 0xc8, 0, 2]),
      message: "The JPEG has a reserved marker (0xFFC8), which browsers refuse.",
    },
    {
      name: "junk before a second SOI",
      bytes: splice(jpg, sof, [0x12, 0xff, 0xd8]),
      message: "The JPEG has a malformed marker segment.",
    },
  ])("refuses a JPEG with $name", ({ bytes, message }) => {
    expect(inspectImage(bytes)).toEqual({ ok: false, reason: "corrupt", type: "image/jpeg", message });
  });

  it.each([
    { name: "JPG (FFC8)", marker: 0xc8, hex: "C8" },
    { name: "DHP (FFDE)", marker: 0xde, hex: "DE" },
    { name: "EXP (FFDF)", marker: 0xdf, hex: "DF" },
    { name: "JPG0 (FFF0)", marker: 0xf0, hex: "F0" },
    { name: "JPG13 (FFFD)", marker: 0xfd, hex: "FD" },
    { name: "RES (FF02)", marker: 0x02, hex: "02" },
    { name: "RES (FFBF)", marker: 0xbf, hex: "BF" },
  ])("refuses a JPEG with a $name segment, before its frame header or after its scan", ({ marker, hex }) => {
    const refused = {
      ok: false,
      reason: "corrupt",
      type: "image/jpeg",
      message: `The JPEG has a reserved marker (0xFF${hex}), which browsers refuse.`,
    };
    expect(inspectImage(segmentAt(sof, marker))).toEqual(refused);
    expect(inspectImage(segmentAt(jpg.length - 2, marker))).toEqual(refused);
    // Refused on the marker, before its length: a length below 2 changes nothing.
    expect(inspectImage(splice(jpg, sof, [0xff, marker, 0, 0]))).toEqual(refused);
  });

  // giflib reads an image descriptor without comparing it with the screen; Chrome and Skia enlarge the screen to the
  // first frame and crop later ones, Firefox crops: every one shows the file, so it is accepted at the screen's size.
  it.each([
    { name: "larger than the logical screen", at: 24, value: [0xf4, 0x01] },
    { name: "extending beyond the logical screen", at: 20, value: [4, 0] },
    { name: "wholly outside the logical screen", at: 22, value: [0xe8, 0x03] },
  ])("accepts a GIF whose image is $name, as the screen's size", ({ at, value }) => {
    const bytes = gif(5, 7);
    bytes.set(value, at);
    expect(inspectImage(bytes)).toEqual({ ok: true, type: "image/gif", width: 5, height: 7 });
  });

  // Chrome shows the file as large as its first image reaches, so the side limit applies to where images end.
  it.each([
    { name: "65,535 pixels wide on a 1 × 1 screen", at: 24, value: [0xff, 0xff], reach: /65535 × 7 pixels/ },
    { name: "16,385 pixels tall", at: 26, value: [0x01, 0x40], reach: /5 × 16385 pixels/ },
    { name: "16,380 pixels right of the corner and 5 wide", at: 20, value: [0xfc, 0x3f], reach: /16385 × 7 pixels/ },
  ])("refuses a GIF whose image reaches past 16,384 pixels a side: $name", ({ at, value, reach }) => {
    const bytes = gif(1, 1);
    bytes.set([5, 0, 7, 0], 24);
    bytes.set(value, at);
    const got = inspectImage(bytes);
    expect(got).toMatchObject({ ok: false, reason: "corrupt", type: "image/gif" });
    expect((got as { message: string }).message).toMatch(/first image reaches/);
    expect((got as { message: string }).message).toMatch(reach);
    expect((got as { message: string }).message).toMatch(/at most 16384 pixels a side/);
  });

  it("accepts a GIF whose image ends exactly 16,384 pixels from the corner", () => {
    const bytes = gif(1, 1);
    bytes.set([0xfb, 0x3f, 0, 0, 5, 0, 7, 0], 20);
    expect(inspectImage(bytes)).toEqual({ ok: true, type: "image/gif", width: 1, height: 1 });
  });

  it("accepts a GIF whose second image lies past 16,384 pixels: later images are cropped to the screen", () => {
    const first = gif(100, 100);
    // The same file with a second image, 10 × 10 at left 16,380, before the trailer.
    const descriptor = [0x2c, 0xfc, 0x3f, 0, 0, 10, 0, 10, 0, 0, 2, 2, 0x44, 0x01, 0];
    const bytes = Uint8Array.from([...first.subarray(0, first.length - 1), ...descriptor, 0x3b]);
    expect(inspectImage(bytes)).toEqual({ ok: true, type: "image/gif", width: 100, height: 100 });
  });

  // Chrome enlarges the screen to where the first image reaches, so a screen side of zero (encoders that write a 0 × 0
  // screen) is shown at the first image's size; the side limit applies to that size.
  it.each([
    {
      name: "a 0 × 0 screen whose first image is 40 × 30 at the corner",
      screen: [0, 0],
      place: [0, 0],
      size: [40, 30],
    },
    { name: "a 0 × 0 screen whose first image is 40 × 30 at (3, 2)", screen: [0, 0], place: [3, 2], size: [43, 32] },
    {
      name: "a 0 × 12 screen whose first image is 40 × 30 at the corner",
      screen: [0, 12],
      place: [0, 0],
      size: [40, 12],
    },
    {
      name: "a 0 × 0 screen whose first image reaches 16,384 pixels",
      screen: [0, 0],
      place: [16_344, 0],
      size: [16_384, 30],
    },
  ])("accepts $name, at the first image's size", ({ screen, place, size }) => {
    const bytes = gif(40, 30);
    const u16 = (n: number) => [n & 0xff, n >> 8];
    bytes.set([...u16(screen[0]), ...u16(screen[1])], 6);
    bytes.set([...u16(place[0]), ...u16(place[1])], 20);
    expect(inspectImage(bytes)).toEqual({ ok: true, type: "image/gif", width: size[0], height: size[1] });
  });

  it("takes a 0 × 0 screen's size from the first image only, not a larger second one", () => {
    const first = gif(4, 3);
    first.set([0, 0, 0, 0], 6);
    const descriptor = [0x2c, 0, 0, 0, 0, 50, 0, 60, 0, 0, 2, 2, 0x44, 0x01, 0];
    const bytes = Uint8Array.from([...first.subarray(0, first.length - 1), ...descriptor, 0x3b]);
    expect(inspectImage(bytes)).toEqual({ ok: true, type: "image/gif", width: 4, height: 3 });
  });

  it.each([
    { name: "16,385 pixels wide", image: [0x01, 0x40, 7, 0], message: "16385 × 7" },
    { name: "65,535 pixels tall", image: [5, 0, 0xff, 0xff], message: "5 × 65535" },
  ])("refuses a 0 × 0 screen whose first image is $name, as that image's size", ({ image, message }) => {
    const bytes = gif(1, 1);
    bytes.set([0, 0, 0, 0], 6);
    bytes.set(image, 24);
    expect(inspectImage(bytes)).toEqual({
      ok: false,
      reason: "corrupt",
      type: "image/gif",
      message: `The image is ${message} pixels; at most 16384 pixels a side are accepted.`,
    });
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
    { name: "JPEG without EOI", bytes: jpg.subarray(0, jpg.length - 2), message: /without an end-of-image marker/ },
    {
      name: "JPEG with two frame headers",
      bytes: splice(jpg, sos, [...jpg.subarray(sof, sof + 19)]),
      message: /more than one frame header/,
    },
    {
      name: "JPEG whose frame header's length does not fit its components",
      bytes: mutate(jpg, sof + 9, 2),
      message: /number of components/,
    },
    {
      name: "JPEG with no scan before EOI",
      bytes: Uint8Array.from([...jpg.subarray(0, sos), 0xff, 0xd9]),
      message: /no image data \(SOS\)/,
    },
    {
      name: "JPEG whose scan header's length does not fit its components",
      bytes: mutate(jpg, sos + 4, 2),
      message: /malformed scan header/,
    },
    {
      name: "JPEG whose segment runs past the end",
      bytes: jpg.subarray(0, sof + 10),
      message: /JPEG file is truncated/,
    },
    // GIF
    {
      name: "GIF with no image (a screen and a trailer only)",
      bytes: Uint8Array.from([...ascii("GIF89a"), 5, 0, 7, 0, 0, 0, 0, 0x3b]),
      message: /no image/,
    },
    { name: "GIF without its trailer", bytes: gif1.subarray(0, gif1.length - 1), message: /ends without its trailer/ },
    {
      name: "GIF cut inside its image data",
      bytes: gif1.subarray(0, gif1.length - 3),
      message: /GIF file is truncated/,
    },
    { name: "GIF with an unknown block", bytes: mutate(gif1, 19, 0x2d), message: /unknown block/ },
    { name: "GIF with an LZW code size of 12", bytes: mutate(gif1, 29, 12), message: /LZW code size/ },
    {
      name: "GIF whose global colour table is cut off",
      bytes: mutate(gif(1, 1), 10, 0x87),
      message: /GIF file is truncated/,
    },
    // WebP
    {
      name: "extended WebP with no image chunk",
      bytes: riff(riffChunk("VP8X", [0, 0, 0, 0, 9, 0, 0, 9, 0, 0])),
      message: /no image data/,
    },
    {
      name: "extended WebP whose image is not its canvas's size",
      bytes: riff(riffChunk("VP8X", [0, 0, 0, 0, 9, 0, 0, 9, 0, 0]), vp8l(10, 11)),
      message: /image is 10 × 11 but its canvas \(VP8X\) is 10 × 10/,
    },
    {
      name: "WebP VP8 whose first partition is longer than its chunk",
      bytes: mutate(webp(10, 10, "lossy"), 21, 0x02),
      message: /frame tag is invalid/,
    },
    {
      name: "WebP VP8 frame that is not shown",
      bytes: mutate(webp(10, 10, "lossy"), 20, 0x20),
      message: /frame tag is invalid/,
    },
    {
      name: "WebP VP8L of an unknown version",
      bytes: mutate(webp(10, 10, "lossless"), 24, 0x20),
      message: /unknown version/,
    },
    {
      name: "WebP whose chunk runs past the RIFF container",
      bytes: mutate(webp(10, 10, "lossless"), 16, 0x40),
      message: /runs past the end/,
    },
    {
      name: "animated WebP without ANIM",
      bytes: riff(
        riffChunk("VP8X", [2, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        riffChunk("ANMF", [...new Array(15).fill(0), 0, ...vp8l(1, 1)]),
      ),
      message: /no ANIM chunk/,
    },
    {
      name: "animated WebP without frames",
      bytes: riff(riffChunk("VP8X", [2, 0, 0, 0, 0, 0, 0, 0, 0, 0]), riffChunk("ANIM", [0, 0, 0, 0, 0, 0])),
      message: /no frame/,
    },
    {
      name: "animated WebP with a frame outside its canvas",
      bytes: mutate(webp(2, 2, "animated"), 12 + 18 + 14 + 8, 1),
      message: /outside its canvas/,
    },
  ])("refuses $name as corrupt, saying what is wrong", ({ bytes, message }) => {
    const result = inspectImage(bytes);
    expect(result).toMatchObject({ ok: false, reason: "corrupt", message: expect.stringMatching(message) });
  });
});

describe("JPEG frames, scans and tables: refused exactly where libjpeg(-turbo) refuses them", () => {
  const seg = (marker: number, payload: number[]) => [
    0xff,
    marker,
    (payload.length + 2) >> 8,
    (payload.length + 2) & 0xff,
    ...payload,
  ];
  /** A DQT of these table slots (the high nibble: 16-bit values), each of 64 values. */
  const dqt = (...tables: number[]) =>
    seg(
      0xdb,
      tables.flatMap((t) => [t, ...new Array(t >> 4 ? 128 : 64).fill(1)]),
    );
  /** A 16 × 16 frame of this sample precision whose component ids[i] (default i + 1) uses quantization slot tqs[i]. */
  const frame = (tqs: number[], marker = 0xc0, ids = tqs.map((_, i) => i + 1), precision = 8) =>
    seg(marker, [precision, 0, 16, 0, 16, tqs.length, ...tqs.flatMap((tq, i) => [ids[i], 0x11, tq])]);
  /** A DQT segment of exactly these bytes (tables cut short, leftover bytes). */
  const rawDqt = (...payload: number[]) => seg(0xdb, payload);
  const table8 = (slot: number, values = 64) => [slot, ...new Array(values).fill(1)];
  /** A scan of these component identifiers, then two bytes of coded data. */
  const scan = (...ids: number[]) => [
    ...seg(0xda, [ids.length, ...ids.flatMap((id) => [id, 0]), 0, 63, 0]),
    0x12,
    0x34,
  ];
  /** A progressive DC first scan (Ss = Se = 0) of these component identifiers, each with DC table 0. */
  const dcScan = (...ids: number[]) => [
    ...seg(0xda, [ids.length, ...ids.flatMap((id) => [id, 0]), 0, 0, 0]),
    0x12,
    0x34,
  ];
  const jpegOf = (...parts: number[][]) => Uint8Array.from([0xff, 0xd8, ...parts.flat(), 0xff, 0xd9]);
  /** A DHT of these class/slot bytes (0x1n: AC table n), each a table of one 1-bit code. */
  const dht = (...indexes: number[]) =>
    seg(
      0xc4,
      indexes.flatMap((index) => [index, 1, ...new Array(15).fill(0), 0]),
    );
  /** A DHT of one table: its class/slot byte, its code counts by length (1 to 16 bits) and its symbols. */
  const huffTable = (index: number, counts: number[], symbols: number[]) =>
    seg(0xc4, [index, ...counts, ...new Array(16 - counts.length).fill(0), ...symbols]);
  /** One code of each length from 1 to 16 bits: every code but the all-ones one, which no code may be. */
  const fullCounts = new Array(16).fill(1);
  const symbols = (n: number, first = 0) => Array.from({ length: n }, (_, i) => first + i);
  /**
   * A scan of components 1, 2, … whose DC/AC Huffman table bytes are `tables` (0xDA: DC table D, AC table A), with
   * spectral selection Ss–Se and successive approximation Ah/Al (default a whole sequential scan).
   */
  const huffScan = (tables: number[], ss = 0, se = 63, ahAl = 0) => [
    ...seg(0xda, [tables.length, ...tables.flatMap((t, i) => [i + 1, t]), ss, se, ahAl]),
    0x12,
    0x34,
  ];

  it.each([
    {
      name: "a baseline JPEG without any DHT (decoders use the standard Huffman tables)",
      bytes: jpegOf(dqt(0), frame([0, 0, 0]), scan(1, 2, 3)),
    },
    { name: "a DQT between the frame header and the scan", bytes: jpegOf(frame([0, 1]), dqt(0, 1), scan(1, 2)) },
    { name: "two tables, one of 16-bit values, in one DQT", bytes: jpegOf(dqt(0x10, 1), frame([0, 1]), scan(1, 2)) },
    {
      name: "a progressive JPEG whose second component's table is defined after the first scan, before its own",
      bytes: jpegOf(dqt(0), frame([0, 1], 0xc2), dht(0x00), dcScan(1), dqt(1), dcScan(2)),
    },
    {
      name: "a lossless JPEG (SOF3) with no DQT (it uses none)",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3), huffScan([0x00], 1, 0, 0)),
    },
    {
      // libjpeg-turbo pairs repeated IDs with the components in order: each component's own table is checked.
      name: "components that share ID 1 (old encoders), each with a defined table, in one scan",
      bytes: jpegOf(dqt(0, 1), frame([0, 1, 0], 0xc0, [1, 1, 1]), scan(1, 1, 1)),
    },
    {
      // The scan holds the first component only: the third's undefined table 2 is never latched, and libjpeg-turbo
      // decodes the file (the components no scan held come out empty).
      name: "components that share ID 1, tables 0, 0, 2, only DQT 0, and a scan of the first component alone",
      bytes: jpegOf(dqt(0), frame([0, 0, 2], 0xc0, [1, 1, 1]), scan(1)),
    },
    {
      name: "a frame of 10 components (libjpeg-turbo's most) and a scan of 4",
      bytes: jpegOf(dqt(0), frame(new Array(10).fill(0)), scan(1, 2, 3, 4)),
    },
    {
      // get_sos looks for a scan's n-th ID from the frame's n-th component on: the second ID 1 is component 2, whose
      // table 0 is defined (pairing it with the first free component of ID 1, number 1 and table 1, would refuse it).
      name: "IDs 1, 1, 2 with tables 1, 0, 0, only DQT 0, and a scan of IDs 2, 1",
      bytes: jpegOf(dqt(0), frame([1, 0, 0], 0xc0, [1, 1, 2]), scan(2, 1)),
    },
    // Huffman tables (jdhuff.c, jdphuff.c, jdlhuff.c: each scan's tables are looked up when it starts).
    {
      name: "a baseline scan using tables 1 with no DHT (libjpeg-turbo fills in the standard tables 0 and 1)",
      bytes: jpegOf(dqt(0), frame([0, 0]), huffScan([0x00, 0x11])),
    },
    {
      name: "a baseline scan using DC and AC tables 2 and 3 that a DHT defines",
      bytes: jpegOf(dqt(0), dht(0x02, 0x13), frame([0]), huffScan([0x23])),
    },
    {
      name: "a DHT for table 2 between the first scan and the second, which uses it",
      bytes: jpegOf(dqt(0), frame([0, 0]), huffScan([0x00]), dht(0x02, 0x12), huffScan([0x00, 0x22])),
    },
    {
      name: "a progressive DC first scan using DC table 2 (defined) and naming an undefined AC table 3 it does not use",
      bytes: jpegOf(dqt(0), dht(0x02), frame([0], 0xc2), huffScan([0x23], 0, 0, 0x01)),
    },
    {
      name: "a progressive DC refinement scan naming undefined tables 3 (it uses none)",
      bytes: jpegOf(dqt(0), dht(0x00), frame([0], 0xc2), huffScan([0x00], 0, 0, 0x01), huffScan([0x33], 0, 0, 0x10)),
    },
    {
      name: "a progressive AC scan using AC table 2 (defined) and naming an undefined DC table 3 it does not use",
      bytes: jpegOf(dqt(0), dht(0x00, 0x12), frame([0], 0xc2), huffScan([0x00], 0, 0, 0), huffScan([0x32], 1, 63, 0)),
    },
    {
      name: "a lossless (SOF3) scan using DC table 2 (defined) and naming an undefined AC table 3 it does not use",
      bytes: jpegOf(dht(0x02), frame([0], 0xc3), huffScan([0x23], 1, 0, 0)),
    },
    {
      name: "an arithmetic-coded (SOF9) scan naming tables 3 and 15, with no DHT (it uses no Huffman table)",
      bytes: jpegOf(dqt(0), frame([0], 0xc9), huffScan([0x3f])),
    },
    {
      name: "an extended sequential (SOF1) scan using tables 0 and 1 with no DHT (the standard tables)",
      bytes: jpegOf(dqt(0), frame([0, 0], 0xc1), huffScan([0x00, 0x11])),
    },
    {
      name: "a progressive DC first scan using DC table 0 that a DHT before the frame header defines",
      bytes: jpegOf(dqt(0), dht(0x00), frame([0], 0xc2), huffScan([0x00], 0, 0, 0)),
    },
    // Huffman tables' contents, as jdhuff.c jpeg_make_d_derived_tbl checks them when a scan uses the table.
    {
      name: "a baseline scan whose DC and AC tables have one code of each length, 1 to 16 bits (symbols 0–15, 200–215)",
      bytes: jpegOf(
        dqt(0),
        huffTable(0x00, fullCounts, symbols(16)),
        huffTable(0x10, fullCounts, symbols(16, 200)),
        frame([0]),
        huffScan([0x00]),
      ),
    },
    {
      name: "a baseline scan whose AC table has the symbol 255 (AC symbols are not checked)",
      bytes: jpegOf(dqt(0), huffTable(0x10, [1, 1], [0, 255]), frame([0]), huffScan([0x00])),
    },
    {
      name: "a lossless (SOF3) scan whose DC table has the symbol 16",
      bytes: jpegOf(huffTable(0x00, [0, 2], [15, 16]), frame([0], 0xc3), huffScan([0x00], 1, 0, 0)),
    },
    {
      name: "an overfull DC table 2 and a DC table 3 with the symbol 200 that no scan uses",
      bytes: jpegOf(dqt(0), huffTable(0x02, [2], [0, 1]), huffTable(0x03, [1], [200]), frame([0]), huffScan([0x00])),
    },
    {
      name: "an overfull AC table 0 in a progressive frame whose only scan is a DC scan",
      bytes: jpegOf(dqt(0), dht(0x00), huffTable(0x10, [3], [0, 1, 2]), frame([0], 0xc2), huffScan([0x00], 0, 0, 0)),
    },
    {
      name: "an overfull DC table 0 in an arithmetic-coded (SOF9) frame (it uses no Huffman table)",
      bytes: jpegOf(dqt(0), huffTable(0x00, [2], [0, 1]), frame([0], 0xc9), huffScan([0x00])),
    },
    {
      name: "an overfull DC table 0 that a second DHT redefines before the scan",
      bytes: jpegOf(dqt(0), huffTable(0x00, [2], [0, 1]), dht(0x00), frame([0]), huffScan([0x00])),
    },
  ])("accepts $name", ({ bytes }) => {
    expect(inspectImage(bytes)).toMatchObject({ ok: true, type: "image/jpeg", width: 16, height: 16 });
  });

  // Scan parameters: libjpeg-turbo refuses bad progression (jdphuff.c start_pass_phuff_decoder, jdarith.c start_pass)
  // and bad lossless parameters (jdlossls.c start_pass_lossless), JERR_BAD_PROGRESSION; it only warns about a scan out
  // of order (JWRN_BOGUS_PROGRESSION) and about a sequential scan's parameters (JWRN_NOT_SEQUENTIAL).
  const prog = (...scans: number[][]) => jpegOf(dqt(0), dht(0x00, 0x01, 0x10, 0x11), frame([0, 0, 0], 0xc2), ...scans);
  it.each([
    { name: "a progressive DC scan with Al 13", bytes: prog(huffScan([0x00, 0x00, 0x00], 0, 0, 0x0d)) },
    { name: "a progressive AC scan of coefficient 63 alone", bytes: prog(huffScan([0x00], 63, 63, 0)) },
    {
      name: "a progressive AC scan before the component's DC scan (only a warning)",
      bytes: prog(huffScan([0x00], 1, 63, 0), huffScan([0x00, 0x00, 0x00], 0, 0, 0)),
    },
    {
      name: "a progressive AC refinement of bits never sent (only a warning)",
      bytes: prog(huffScan([0x00, 0x00, 0x00], 0, 0, 0), huffScan([0x00], 1, 63, 0x54)),
    },
    {
      name: "a progressive DC refinement of three components (Ah 1, Al 0)",
      bytes: prog(huffScan([0x00, 0x00, 0x00], 0, 0, 0x01), huffScan([0x00, 0x00, 0x00], 0, 0, 0x10)),
    },
    {
      name: "an arithmetic-coded progressive (SOF10) DC scan, then an AC scan, with no DHT",
      bytes: jpegOf(dqt(0), frame([0, 0], 0xca), huffScan([0x00, 0x00], 0, 0, 0x01), huffScan([0x00], 1, 63, 0)),
    },
    {
      name: "a baseline scan with progressive-looking parameters (only a warning)",
      bytes: jpegOf(dqt(0), frame([0]), huffScan([0x00], 5, 2, 0x21)),
    },
    {
      name: "a lossless (SOF3) scan with predictor 7 and Al 7",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3), huffScan([0x00], 7, 0, 0x07)),
    },
  ])("accepts $name", ({ bytes }) => {
    expect(inspectImage(bytes)).toMatchObject({ ok: true, type: "image/jpeg", width: 16, height: 16 });
  });

  it.each([
    {
      name: "a progressive DC scan that runs to Se 63 (the whole block in one scan)",
      bytes: prog(huffScan([0x00, 0x00, 0x00], 0, 63, 0)),
      message: "The JPEG's progressive scan (Ss 0, Se 63, Ah 0, Al 0) is invalid: a DC scan (Ss 0) must end at Se 0.",
    },
    {
      name: "a progressive AC scan whose Ss is past its Se",
      bytes: prog(huffScan([0x00, 0x00, 0x00], 0, 0, 0), huffScan([0x00], 6, 5, 0)),
      message: "The JPEG's progressive scan (Ss 6, Se 5, Ah 0, Al 0) is invalid: an AC scan needs Ss ≤ Se ≤ 63.",
    },
    {
      name: "a progressive AC scan to Se 64",
      bytes: prog(huffScan([0x00, 0x00, 0x00], 0, 0, 0), huffScan([0x00], 1, 64, 0)),
      message: "The JPEG's progressive scan (Ss 1, Se 64, Ah 0, Al 0) is invalid: an AC scan needs Ss ≤ Se ≤ 63.",
    },
    {
      name: "a progressive AC scan of two components",
      bytes: prog(huffScan([0x00, 0x00, 0x00], 0, 0, 0), huffScan([0x00, 0x00], 1, 63, 0)),
      message:
        "The JPEG's progressive scan (Ss 1, Se 63, Ah 0, Al 0) is invalid: an AC scan holds one component, not 2.",
    },
    {
      name: "a progressive refinement with Ah 2 and Al 0",
      bytes: prog(huffScan([0x00, 0x00, 0x00], 0, 0, 0x02), huffScan([0x00, 0x00, 0x00], 0, 0, 0x20)),
      message:
        "The JPEG's progressive scan (Ss 0, Se 0, Ah 2, Al 0) is invalid: a refinement scan (Ah not 0) needs Al = Ah − 1.",
    },
    {
      name: "a progressive DC scan with Al 14",
      bytes: prog(huffScan([0x00, 0x00, 0x00], 0, 0, 0x0e)),
      message: "The JPEG's progressive scan (Ss 0, Se 0, Ah 0, Al 14) is invalid: Al is at most 13.",
    },
    {
      // The progression is checked before the Huffman tables are looked up.
      name: "a progressive (SOF2) scan of Ss 0 to Se 63 without any DHT",
      bytes: jpegOf(dqt(0), frame([0], 0xc2), huffScan([0x00])),
      message: "The JPEG's progressive scan (Ss 0, Se 63, Ah 0, Al 0) is invalid: a DC scan (Ss 0) must end at Se 0.",
    },
    {
      name: "an arithmetic-coded progressive (SOF10) AC scan of two components",
      bytes: jpegOf(dqt(0), frame([0, 0], 0xca), huffScan([0x00, 0x00], 0, 0, 0), huffScan([0x00, 0x00], 1, 63, 0)),
      message:
        "The JPEG's progressive scan (Ss 1, Se 63, Ah 0, Al 0) is invalid: an AC scan holds one component, not 2.",
    },
    {
      name: "a lossless (SOF3) scan with predictor 0",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3), huffScan([0x00], 0, 0, 0)),
      message: "The JPEG's lossless scan (Ss 0, Se 0, Ah 0, Al 0) is invalid: its predictor (Ss) must be 1 to 7.",
    },
    {
      name: "a lossless (SOF3) scan with predictor 8",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3), huffScan([0x00], 8, 0, 0)),
      message: "The JPEG's lossless scan (Ss 8, Se 0, Ah 0, Al 0) is invalid: its predictor (Ss) must be 1 to 7.",
    },
    {
      name: "a lossless (SOF3) scan with Se 63",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3), huffScan([0x00], 1, 63, 0)),
      message: "The JPEG's lossless scan (Ss 1, Se 63, Ah 0, Al 0) is invalid: Se and Ah must be 0.",
    },
    {
      name: "a lossless (SOF3) scan with Ah 1",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3), huffScan([0x00], 1, 0, 0x10)),
      message: "The JPEG's lossless scan (Ss 1, Se 0, Ah 1, Al 0) is invalid: Se and Ah must be 0.",
    },
    {
      name: "a lossless (SOF3) scan of 8-bit samples with Al 8",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3), huffScan([0x00], 1, 0, 0x08)),
      message:
        "The JPEG's lossless scan (Ss 1, Se 0, Ah 0, Al 8) is invalid: its point transform (Al) must be below the frame's precision of 8 bits.",
    },
  ])("refuses $name as corrupt", ({ bytes, message }) => {
    expect(inspectImage(bytes)).toEqual({ ok: false, reason: "corrupt", type: "image/jpeg", message });
  });

  // Sampling factors: libjpeg-turbo decodes 1 to 4 each (jdinput.c initial_setup, JERR_BAD_SAMPLING), every
  // component's checked once the first scan header is read, after the sample precision.
  /** A 16 × 16 frame whose component i + 1 has the sampling byte samplings[i] (H << 4 | V) and uses table 0. */
  const sampledFrame = (samplings: number[], marker = 0xc0, precision = 8) =>
    seg(marker, [precision, 0, 16, 0, 16, samplings.length, ...samplings.flatMap((hv, i) => [i + 1, hv, 0])]);
  it.each([
    { name: "a component sampled 4 × 4", bytes: jpegOf(dqt(0), sampledFrame([0x44]), scan(1)) },
    {
      name: "components sampled 2 × 1, 1 × 1, 1 × 1 in one scan",
      bytes: jpegOf(dqt(0), sampledFrame([0x21, 0x11, 0x11]), scan(1, 2, 3)),
    },
    {
      name: "a lossless (SOF3) frame of one component sampled 4 × 4",
      bytes: jpegOf(dht(0x00), sampledFrame([0x44], 0xc3), huffScan([0x00], 1, 0, 0)),
    },
  ])("accepts $name", ({ bytes }) => {
    expect(inspectImage(bytes)).toMatchObject({ ok: true, type: "image/jpeg", width: 16, height: 16 });
  });

  it.each([
    {
      name: "a component sampled 0 × 1",
      bytes: jpegOf(dqt(0), sampledFrame([0x01]), scan(1)),
      message: "1 has sampling factors 0 × 1",
    },
    {
      name: "a component sampled 1 × 0",
      bytes: jpegOf(dqt(0), sampledFrame([0x10]), scan(1)),
      message: "1 has sampling factors 1 × 0",
    },
    {
      name: "a component sampled 5 × 1",
      bytes: jpegOf(dqt(0), sampledFrame([0x51]), scan(1)),
      message: "1 has sampling factors 5 × 1",
    },
    {
      name: "a second component sampled 1 × 15 that the first scan does not hold",
      bytes: jpegOf(dqt(0), sampledFrame([0x11, 0x1f]), scan(1), scan(2)),
      message: "2 has sampling factors 1 × 15",
    },
    {
      name: "a lossless (SOF3) frame's component sampled 0 × 0",
      bytes: jpegOf(dht(0x00), sampledFrame([0x00], 0xc3), huffScan([0x00], 1, 0, 0)),
      message: "1 has sampling factors 0 × 0",
    },
  ])("refuses $name", ({ bytes, message }) => {
    expect(inspectImage(bytes)).toEqual({
      ok: false,
      reason: "corrupt",
      type: "image/jpeg",
      message: `The JPEG's component ${message}; each is 1 to 4.`,
    });
  });

  it("checks the sample precision before the sampling factors", () => {
    expect(inspectImage(jpegOf(dqt(0), sampledFrame([0x00], 0xc0, 7), scan(1)))).toMatchObject({
      ok: false,
      message: "The JPEG's frame header gives a sample precision of 7 bits; a DCT (not lossless) frame has 8 or 12.",
    });
  });

  // Blocks in an MCU: an interleaved scan's MCU holds H × V blocks of each of its components, at most 10 (jdinput.c
  // per_scan_setup, JERR_BAD_MCU_SIZE, when the scan starts, before its tables are looked up); a scan of one
  // component has one block to an MCU.
  it.each([
    {
      name: "a scan of components sampled 2 × 2, 2 × 2 and 2 × 1 (10 blocks)",
      bytes: jpegOf(dqt(0), sampledFrame([0x22, 0x22, 0x21]), scan(1, 2, 3)),
    },
    {
      name: "scans of one component each of components sampled 4 × 4, 4 × 4 and 1 × 1",
      bytes: jpegOf(dqt(0), sampledFrame([0x44, 0x44, 0x11]), scan(1), scan(2), scan(3)),
    },
  ])("accepts $name", ({ bytes }) => {
    expect(inspectImage(bytes)).toMatchObject({ ok: true, type: "image/jpeg", width: 16, height: 16 });
  });

  it.each([
    {
      name: "a scan of components sampled 2 × 2, 2 × 2 and 2 × 2 (12 blocks)",
      bytes: jpegOf(dqt(0), sampledFrame([0x22, 0x22, 0x22]), scan(1, 2, 3)),
      message: "The JPEG's scan of 3 components has 12 blocks in an MCU; at most 10 are decoded.",
    },
    {
      name: "a second scan, of components sampled 4 × 4 and 1 × 1 (17 blocks), after a scan of the first alone",
      bytes: jpegOf(dqt(0), sampledFrame([0x44, 0x11]), scan(1), scan(1, 2)),
      message: "The JPEG's scan of 2 components has 17 blocks in an MCU; at most 10 are decoded.",
    },
    {
      name: "a lossless (SOF3) scan of components sampled 4 × 2 and 2 × 2 (12 data units)",
      bytes: jpegOf(dht(0x00), sampledFrame([0x42, 0x22], 0xc3), huffScan([0x00, 0x00], 1, 0, 0)),
      message: "The JPEG's scan of 2 components has 12 blocks in an MCU; at most 10 are decoded.",
    },
    {
      // per_scan_setup runs before latch_quant_tables.
      name: "a scan of 12 blocks whose components' quantization table is not defined (the MCU is refused first)",
      bytes: jpegOf(sampledFrame([0x22, 0x22, 0x22]), scan(1, 2, 3)),
      message: "The JPEG's scan of 3 components has 12 blocks in an MCU; at most 10 are decoded.",
    },
  ])("refuses $name", ({ bytes, message }) => {
    expect(inspectImage(bytes)).toEqual({ ok: false, reason: "corrupt", type: "image/jpeg", message });
  });

  // Restart intervals: a DRI's length is 4 (jdmarker.c get_dri, JERR_BAD_LENGTH); a lossless scan restarts only at the
  // start of an MCU row (jddiffct.c start_input_pass, JERR_BAD_RESTART), a DCT one anywhere.
  const dri = (interval: number) => seg(0xdd, [interval >> 8, interval & 0xff]);
  const losslessScan = huffScan([0x00], 1, 0, 0);
  it.each([
    { name: "a baseline scan with a restart interval of 7 MCUs", bytes: jpegOf(dqt(0), dri(7), frame([0]), scan(1)) },
    {
      name: "a lossless (SOF3) scan 16 samples wide with a restart interval of 16",
      bytes: jpegOf(dht(0x00), dri(16), frame([0], 0xc3), losslessScan),
    },
    {
      name: "a lossless (SOF3) scan 16 samples wide with a restart interval of 48 (three rows)",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3), dri(48), losslessScan),
    },
    {
      name: "a lossless (SOF3) scan with a restart interval of 0 (none)",
      bytes: jpegOf(dht(0x00), dri(0), frame([0], 0xc3), losslessScan),
    },
    {
      name: "a lossless (SOF3) interleaved scan of three components 16 wide with a restart interval of 16",
      bytes: jpegOf(dht(0x00), dri(16), frame([0, 0, 0], 0xc3), huffScan([0x00, 0x00, 0x00], 1, 0, 0)),
    },
    {
      name: "a DRI of 5 after the last lossless (SOF3) scan (no scan uses it)",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3), losslessScan, dri(5)),
    },
  ])("accepts $name", ({ bytes }) => {
    expect(inspectImage(bytes)).toMatchObject({ ok: true, type: "image/jpeg", width: 16, height: 16 });
  });

  const badRestart = (interval: number, perRow: number) =>
    `The JPEG's restart interval of ${interval} MCUs is not a whole number of rows of ${perRow}, which a lossless scan needs.`;
  it.each([
    {
      name: "a DRI of length 5",
      bytes: jpegOf(dqt(0), seg(0xdd, [0, 7, 0]), frame([0]), scan(1)),
      message: "The JPEG's restart interval segment (DRI) has length 5, not 4.",
    },
    {
      name: "a DRI of length 2 (no interval)",
      bytes: jpegOf(dqt(0), frame([0]), seg(0xdd, []), scan(1)),
      message: "The JPEG's restart interval segment (DRI) has length 2, not 4.",
    },
    {
      name: "a lossless (SOF3) scan 16 samples wide with a restart interval of 8",
      bytes: jpegOf(dht(0x00), dri(8), frame([0], 0xc3), losslessScan),
      message: badRestart(8, 16),
    },
    {
      name: "a lossless (SOF3) scan with a restart interval of 17, set between the frame header and the scan",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3), dri(17), losslessScan),
      message: badRestart(17, 16),
    },
    {
      name: "a second lossless (SOF3) scan, of the second component, after a DRI of 1",
      bytes: jpegOf(dht(0x00), frame([0, 0], 0xc3), losslessScan, dri(1), seg(0xda, [1, 2, 0x00, 1, 0, 0]), [0x12]),
      message: badRestart(1, 16),
    },
    {
      // The first component, sampled 2 × 2 in a frame whose most is 2, has 16 samples to a row: 8 is half of one.
      name: "a lossless (SOF3) scan of a component sampled 2 × 2 with a restart interval of 8",
      bytes: jpegOf(dht(0x00), dri(8), sampledFrame([0x22, 0x11], 0xc3), losslessScan),
      message: badRestart(8, 16),
    },
    {
      // An interleaved MCU covers Hmax = 2 samples across: 8 MCUs to a row of 16.
      name: "a lossless (SOF3) interleaved scan, components sampled 2 × 2 and 1 × 1, with a restart interval of 12",
      bytes: jpegOf(dht(0x00), dri(12), sampledFrame([0x22, 0x11], 0xc3), huffScan([0x00, 0x00], 1, 0, 0)),
      message: badRestart(12, 8),
    },
    {
      name: "a lossless (SOF3) scan whose predictor and restart interval are both invalid (the predictor is refused first)",
      bytes: jpegOf(dht(0x00), dri(8), frame([0], 0xc3), huffScan([0x00], 0, 0, 0)),
      message: "The JPEG's lossless scan (Ss 0, Se 0, Ah 0, Al 0) is invalid: its predictor (Ss) must be 1 to 7.",
    },
  ])("refuses $name", ({ bytes, message }) => {
    expect(inspectImage(bytes)).toEqual({ ok: false, reason: "corrupt", type: "image/jpeg", message });
  });

  // Sample precision: libjpeg-turbo decodes 8 or 12 bits in a DCT frame and 2 to 16 in a lossless one (jdinput.c
  // initial_setup, JERR_BAD_PRECISION), checked once the first scan header is read, before the scan's parameters.
  it.each([
    { name: "a 12-bit extended sequential (SOF1) JPEG", bytes: jpegOf(dqt(0x10), frame([0], 0xc1, [1], 12), scan(1)) },
    { name: "a 12-bit baseline-marked (SOF0) JPEG", bytes: jpegOf(dqt(0), frame([0], 0xc0, [1], 12), scan(1)) },
    {
      name: "a 12-bit progressive (SOF2) JPEG",
      bytes: jpegOf(dqt(0x10), dht(0x00), frame([0], 0xc2, [1], 12), huffScan([0x00], 0, 0, 0)),
    },
    { name: "a 12-bit arithmetic-coded (SOF9) JPEG", bytes: jpegOf(dqt(0), frame([0], 0xc9, [1], 12), scan(1)) },
    {
      name: "a 16-bit lossless (SOF3) JPEG with Al 15",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3, [1], 16), huffScan([0x00], 1, 0, 0x0f)),
    },
    {
      name: "a 2-bit lossless (SOF3) JPEG with Al 1",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3, [1], 2), huffScan([0x00], 1, 0, 0x01)),
    },
  ])("accepts $name", ({ bytes }) => {
    expect(inspectImage(bytes)).toMatchObject({ ok: true, type: "image/jpeg", width: 16, height: 16 });
  });

  const dctPrecision = (p: number) =>
    `The JPEG's frame header gives a sample precision of ${p} bits; a DCT (not lossless) frame has 8 or 12.`;
  const losslessPrecision = (p: number) =>
    `The JPEG's frame header gives a sample precision of ${p} bits; a lossless frame has 2 to 16.`;
  it.each([
    { precision: 0, sof: "SOF0", marker: 0xc0 },
    { precision: 7, sof: "SOF0", marker: 0xc0 },
    { precision: 9, sof: "SOF1", marker: 0xc1 },
    { precision: 16, sof: "SOF1", marker: 0xc1 },
    { precision: 16, sof: "SOF9", marker: 0xc9 },
  ])("refuses a sequential frame ($sof) of $precision bits", ({ precision, marker }) => {
    const bytes = jpegOf(dqt(0x10), frame([0], marker, [1], precision), scan(1));
    expect(inspectImage(bytes)).toEqual({
      ok: false,
      reason: "corrupt",
      type: "image/jpeg",
      message: dctPrecision(precision),
    });
  });
  it.each([
    {
      name: "a 16-bit progressive (SOF2) frame",
      bytes: jpegOf(dqt(0x10), dht(0x00), frame([0], 0xc2, [1], 16), huffScan([0x00], 0, 0, 0)),
      message: dctPrecision(16),
    },
    {
      name: "a 10-bit arithmetic-coded progressive (SOF10) frame",
      bytes: jpegOf(dqt(0), frame([0], 0xca, [1], 10), huffScan([0x00], 0, 0, 0)),
      message: dctPrecision(10),
    },
    {
      // Before the frame's tables: the precision is checked when the frame is set up, the tables when the scan starts.
      name: "a 16-bit DCT frame whose component's quantization table no DQT defines",
      bytes: jpegOf(frame([0], 0xc1, [1], 16), scan(1)),
      message: dctPrecision(16),
    },
    {
      // Before the point transform, which had been compared with a precision of 0 bits.
      name: "a lossless (SOF3) frame of 0-bit samples",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3, [1], 0), huffScan([0x00], 1, 0, 0)),
      message: losslessPrecision(0),
    },
    {
      name: "a lossless (SOF3) frame of 1-bit samples whose scan has Al 1",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3, [1], 1), huffScan([0x00], 1, 0, 0x01)),
      message: losslessPrecision(1),
    },
    {
      name: "a lossless (SOF3) frame of 17-bit samples",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3, [1], 17), huffScan([0x00], 1, 0, 0)),
      message: losslessPrecision(17),
    },
    {
      name: "a lossless (SOF3) frame of 255-bit samples whose scan's predictor is invalid too",
      bytes: jpegOf(dht(0x00), frame([0], 0xc3, [1], 255), huffScan([0x00], 0, 0, 0)),
      message: losslessPrecision(255),
    },
  ])("refuses $name as corrupt", ({ bytes, message }) => {
    expect(inspectImage(bytes)).toEqual({ ok: false, reason: "corrupt", type: "image/jpeg", message });
  });

  // Lossless arithmetic-coded frames: libjpeg-turbo reads their header but refuses to decode them (jdmaster.c
  // master_selection, JERR_ARITH_NOTIMPL), once the frame's precision has been checked and before any scan starts.
  const sof11 = "The file is a lossless arithmetic-coded JPEG (SOF11), which browsers do not decode.";
  it.each([
    {
      name: "a lossless arithmetic-coded (SOF11) frame with a valid scan",
      bytes: jpegOf(frame([0], 0xcb), huffScan([0x00], 1, 0, 0)),
      message: sof11,
    },
    {
      name: "a 16-bit lossless arithmetic-coded (SOF11) frame",
      bytes: jpegOf(frame([0], 0xcb, [1], 16), huffScan([0x00], 1, 0, 0x0f)),
      message: sof11,
    },
    {
      name: "a lossless arithmetic-coded (SOF11) frame whose scan's predictor is invalid (the frame is refused first)",
      bytes: jpegOf(frame([0], 0xcb), huffScan([0x00], 0, 0, 0)),
      message: sof11,
    },
    {
      name: "a lossless arithmetic-coded (SOF11) frame of 1-bit samples (the precision is checked first)",
      bytes: jpegOf(frame([0], 0xcb, [1], 1), huffScan([0x00], 1, 0, 0)),
      message: "The JPEG's frame header gives a sample precision of 1 bits; a lossless frame has 2 to 16.",
    },
  ])("refuses $name", ({ bytes, message }) => {
    expect(inspectImage(bytes)).toEqual({ ok: false, reason: "corrupt", type: "image/jpeg", message });
  });

  // Hierarchical frames: libjpeg-turbo refuses their markers outright (jdmarker.c read_markers, JERR_SOF_UNSUPPORTED),
  // however well-formed the rest of the file is.
  const hierarchical = (n: number) => `The file is a hierarchical JPEG (SOF${n}), which browsers do not decode.`;
  it.each([
    { name: "a sequential frame (SOF5)", bytes: jpegOf(dqt(0), frame([0], 0xc5), scan(1)), message: hierarchical(5) },
    {
      name: "a progressive frame (SOF6) with a valid DC scan",
      bytes: jpegOf(dqt(0), dht(0x00), frame([0], 0xc6), huffScan([0x00], 0, 0, 0)),
      message: hierarchical(6),
    },
    {
      name: "a lossless frame (SOF7) with a valid scan",
      bytes: jpegOf(dht(0x00), frame([0], 0xc7), huffScan([0x00], 1, 0, 0)),
      message: hierarchical(7),
    },
    {
      name: "an arithmetic-coded sequential frame (SOF13)",
      bytes: jpegOf(dqt(0), frame([0], 0xcd), scan(1)),
      message: hierarchical(13),
    },
    {
      name: "an arithmetic-coded progressive frame (SOF14) with a valid DC scan",
      bytes: jpegOf(dqt(0), frame([0], 0xce), huffScan([0x00], 0, 0, 0)),
      message: hierarchical(14),
    },
    {
      name: "an arithmetic-coded lossless frame (SOF15)",
      bytes: jpegOf(frame([0], 0xcf), huffScan([0x00], 1, 0, 0)),
      message: hierarchical(15),
    },
    {
      name: "a hierarchical frame header (SOF5) after a baseline one",
      bytes: jpegOf(dqt(0), frame([0]), frame([0], 0xc5), scan(1)),
      message: hierarchical(5),
    },
    {
      name: "a hierarchical marker (SOF6) whose length is invalid (the marker is refused first)",
      bytes: jpegOf(dqt(0), frame([0]), [0xff, 0xc6, 0x00, 0x00], scan(1)),
      message: hierarchical(6),
    },
  ])("refuses $name as a hierarchical JPEG", ({ bytes, message }) => {
    expect(inspectImage(bytes)).toEqual({ ok: false, reason: "corrupt", type: "image/jpeg", message });
  });

  /** A scan of these [component ID, DC/AC table byte] pairs with spectral selection Ss–Se and Ah/Al, then coded data. */
  const sos = (components: [number, number][], ss: number, se: number, ahAl: number) => [
    ...seg(0xda, [components.length, ...components.flat(), ss, se, ahAl]),
    0x12,
    0x34,
  ];
  it("accepts a progressive JPEG laid out as libjpeg's cjpeg -progressive -optimize writes it", () => {
    // Y (ID 1, 2 × 2, quantization table 0), Cb and Cr (IDs 2 and 3, 1 × 1, table 1); Huffman tables 0 for Y and 1 for
    // Cb and Cr, each redefined by a DHT before every scan that uses it, as an optimizing encoder writes them; the scan
    // script is jcparam.c jpeg_simple_progression's for YCbCr.
    const all: [number, number][] = [
      [1, 0x00],
      [2, 0x10],
      [3, 0x10],
    ];
    const bytes = Uint8Array.from([
      0xff,
      0xd8,
      ...dqt(0, 1),
      ...seg(0xc2, [8, 0, 16, 0, 16, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]),
      ...dht(0x00, 0x01),
      ...sos(all, 0, 0, 0x01), // DC first, all components, Al 1
      ...dht(0x10),
      ...sos([[1, 0x00]], 1, 5, 0x02), // Y AC 1–5, Al 2
      ...dht(0x11),
      ...sos([[3, 0x11]], 1, 63, 0x01), // Cr AC, Al 1
      ...dht(0x11),
      ...sos([[2, 0x11]], 1, 63, 0x01), // Cb AC, Al 1
      ...dht(0x10),
      ...sos([[1, 0x00]], 6, 63, 0x02), // Y AC 6–63, Al 2
      ...dht(0x10),
      ...sos([[1, 0x00]], 1, 63, 0x21), // Y AC refinement, Ah 2, Al 1
      ...sos(all, 0, 0, 0x10), // DC refinement, no table, no DHT
      ...dht(0x11),
      ...sos([[3, 0x11]], 1, 63, 0x10), // Cr AC refinement
      ...dht(0x11),
      ...sos([[2, 0x11]], 1, 63, 0x10), // Cb AC refinement
      ...dht(0x10),
      ...sos([[1, 0x00]], 1, 63, 0x10), // Y AC refinement, Ah 1, Al 0
      0xff,
      0xd9,
    ]);
    expect(inspectImage(bytes)).toEqual({ ok: true, type: "image/jpeg", width: 16, height: 16 });
  });

  it.each([
    {
      name: "a frame whose component uses a table no DQT defines",
      bytes: jpegOf(dqt(0), frame([0, 1, 1]), scan(1, 2, 3)),
      message: "The JPEG's component 2 uses quantization table 1, which no DQT defines before its first scan.",
    },
    {
      name: "a baseline JPEG with no DQT at all",
      bytes: jpegOf(frame([0]), scan(1)),
      message: "The JPEG's component 1 uses quantization table 0, which no DQT defines before its first scan.",
    },
    {
      name: "a DQT only after the scan that needs it",
      bytes: jpegOf(frame([0]), scan(1), dqt(0)),
      message: "The JPEG's component 1 uses quantization table 0, which no DQT defines before its first scan.",
    },
    {
      name: "a progressive JPEG whose second scan brings a component whose table is still undefined",
      bytes: jpegOf(dqt(0), frame([0, 1], 0xc2), dht(0x00), dcScan(1), dcScan(2), dqt(1)),
      message: "The JPEG's component 2 uses quantization table 1, which no DQT defines before its first scan.",
    },
    {
      name: "a frame naming table 4",
      bytes: jpegOf(dqt(0, 1, 2, 3), frame([4]), scan(1)),
      message: "The JPEG's component 1 uses quantization table 4, which no DQT defines before its first scan.",
    },
    {
      name: "a DQT for table 4",
      bytes: jpegOf(dqt(4), frame([0]), scan(1)),
      message: "The JPEG defines quantization table 4; tables 0 to 3 exist.",
    },
    {
      // Keyed by ID, the last component's table 0 stood for all three.
      name: "components that share ID 1 with tables 1, 0, 0 and only DQT 0",
      bytes: jpegOf(dqt(0), frame([1, 0, 0], 0xc0, [1, 1, 1]), scan(1, 1, 1)),
      message:
        "The JPEG's component 1 (number 1 in the frame header) uses quantization table 1, which no DQT defines before its first scan.",
    },
    {
      name: "components that share ID 1, tables 0, 0, 2, only DQT 0, and a later scan bringing the third",
      bytes: jpegOf(dqt(0), frame([0, 0, 2], 0xc0, [1, 1, 1]), scan(1), scan(1, 1, 1)),
      message:
        "The JPEG's component 1 (number 3 in the frame header) uses quantization table 2, which no DQT defines before its first scan.",
    },
    {
      name: "a scan naming a component ID the frame header does not have",
      bytes: jpegOf(dqt(0), frame([0]), scan(9)),
      message:
        "The JPEG's scan header (SOS) names component 9, which its frame header does not have among its first four.",
    },
    {
      name: "a scan naming a repeated ID more often than the frame header has it",
      bytes: jpegOf(dqt(0), frame([0, 0], 0xc0, [1, 1]), scan(1, 1, 1)),
      message: "The JPEG's scan header (SOS) names component 1 more often than its frame header has it.",
    },
    {
      // libjpeg-turbo reads 64 values whatever the segment's length, then refuses the overrun ("Bogus marker length").
      name: "a DQT whose table is cut short by the segment's length",
      bytes: jpegOf(rawDqt(...table8(0, 10)), frame([0]), scan(1)),
      message: "The JPEG's quantization table 0 (DQT) is cut short by its segment's length.",
    },
    {
      name: "a DQT with a byte left over after a whole table (read as table 1's precision/slot byte)",
      bytes: jpegOf(rawDqt(...table8(0), 0x01), frame([0]), scan(1)),
      message: "The JPEG's quantization table 1 (DQT) is cut short by its segment's length.",
    },
    {
      name: "a DQT with a leftover byte that names table 5",
      bytes: jpegOf(rawDqt(...table8(0), 0x05), frame([0]), scan(1)),
      message: "The JPEG defines quantization table 5; tables 0 to 3 exist.",
    },
    {
      name: "a DQT of 16-bit values cut short, an odd byte over",
      bytes: jpegOf(rawDqt(0x10, 1, 1, 1), frame([0]), scan(1)),
      message: "The JPEG's quantization table 0 (DQT) is cut short by its segment's length.",
    },
    {
      // libjpeg-turbo's MAX_COMPONENTS (JERR_COMPONENT_COUNT).
      name: "a frame of 11 components",
      bytes: jpegOf(dqt(0), frame(new Array(11).fill(0)), scan(1)),
      message: "The JPEG's frame header has 11 components; at most 10 are decoded.",
    },
    {
      // libjpeg-turbo's MAX_COMPS_IN_SCAN (get_sos: JERR_BAD_LENGTH).
      name: "a scan of 5 components",
      bytes: jpegOf(dqt(0), frame(new Array(5).fill(0)), scan(1, 2, 3, 4, 5)),
      message: "The JPEG's scan header (SOS) names 5 components; a scan holds at most 4.",
    },
    {
      // The mirror image: the second ID 1 is component 2, whose table 1 is undefined.
      name: "IDs 1, 1, 2 with tables 0, 1, 0, only DQT 0, and a scan of IDs 2, 1",
      bytes: jpegOf(dqt(0), frame([0, 1, 0], 0xc0, [1, 1, 2]), scan(2, 1)),
      message:
        "The JPEG's component 1 (number 2 in the frame header) uses quantization table 1, which no DQT defines before its first scan.",
    },
    {
      // Both IDs 1 find component 2: the search for the second starts at the frame's second place, and the scan's
      // first entry (not the frame's) marks that place as free; libjpeg-turbo refuses the repeat.
      name: "IDs 2, 1, 1 and a scan of IDs 1, 1",
      bytes: jpegOf(dqt(0), frame([0, 0, 0], 0xc0, [2, 1, 1]), scan(1, 1)),
      message:
        "The JPEG's scan header (SOS) names component 1 twice; libjpeg-turbo pairs both with the frame's component number 2.",
    },
    {
      name: "a scan naming the frame's components out of order (IDs 2, 1)",
      bytes: jpegOf(dqt(0), frame([0, 0]), scan(2, 1)),
      message:
        "The JPEG's scan header (SOS) names component 1 out of the frame header's order; libjpeg-turbo pairs a scan's n-th component with the frame's n-th or a later one.",
    },
    // Huffman tables: slots 2 and 3 have no standard table; a scan that uses one needs a DHT before it.
    {
      name: "a baseline scan using DC table 2 with no DHT",
      bytes: jpegOf(dqt(0), frame([0, 0]), huffScan([0x00, 0x20])),
      message: "The JPEG's component 2 uses DC Huffman table 2, which no DHT defines before its scan.",
    },
    {
      name: "a baseline scan using AC table 3 where the DHT defines DC table 3 only",
      bytes: jpegOf(dqt(0), dht(0x03), frame([0]), huffScan([0x33])),
      message: "The JPEG's component 1 uses AC Huffman table 3, which no DHT defines before its scan.",
    },
    {
      name: "a DHT for table 2 only after the scan that uses it",
      bytes: jpegOf(dqt(0), frame([0]), huffScan([0x22]), dht(0x02, 0x12)),
      message: "The JPEG's component 1 uses DC Huffman table 2, which no DHT defines before its scan.",
    },
    {
      name: "a progressive DC first scan using an undefined DC table 2",
      bytes: jpegOf(dqt(0), frame([0], 0xc2), huffScan([0x20], 0, 0, 0)),
      message: "The JPEG's component 1 uses DC Huffman table 2, which no DHT defines before its scan.",
    },
    {
      name: "a progressive AC scan using an undefined AC table 3",
      bytes: jpegOf(dqt(0), dht(0x00), frame([0], 0xc2), huffScan([0x00], 0, 0, 0), huffScan([0x03], 1, 5, 0)),
      message: "The JPEG's component 1 uses AC Huffman table 3, which no DHT defines before its scan.",
    },
    {
      name: "a lossless (SOF3) scan using an undefined DC table 2",
      bytes: jpegOf(frame([0], 0xc3), huffScan([0x20], 1, 0, 0)),
      message: "The JPEG's component 1 uses DC Huffman table 2, which no DHT defines before its scan.",
    },
    // Slots 0 and 1 too: only libjpeg-turbo's sequential decoder fills in standard tables (jdhuff.c
    // jinit_huff_decoder); its progressive and lossless ones (jdphuff.c, jdlhuff.c) refuse a slot no DHT defined.
    {
      name: "a progressive DC first scan using DC table 0 with no DHT",
      bytes: jpegOf(dqt(0), frame([0, 0], 0xc2), huffScan([0x00, 0x00], 0, 0, 0)),
      message: "The JPEG's component 1 uses DC Huffman table 0, which no DHT defines before its scan.",
    },
    {
      name: "a progressive DC first scan using DC table 1 where the DHT defines DC table 0 and AC table 1",
      bytes: jpegOf(dqt(0), dht(0x00, 0x11), frame([0, 0], 0xc2), huffScan([0x00, 0x11], 0, 0, 0)),
      message: "The JPEG's component 2 uses DC Huffman table 1, which no DHT defines before its scan.",
    },
    {
      name: "a progressive AC scan using AC table 1 where the DHT defines the DC tables only",
      bytes: jpegOf(dqt(0), dht(0x00, 0x01), frame([0], 0xc2), huffScan([0x00], 0, 0, 0), huffScan([0x01], 1, 63, 0)),
      message: "The JPEG's component 1 uses AC Huffman table 1, which no DHT defines before its scan.",
    },
    {
      name: "a progressive AC scan whose DHT for AC table 0 comes only after it",
      bytes: jpegOf(
        dqt(0),
        dht(0x00),
        frame([0], 0xc2),
        huffScan([0x00], 0, 0, 0),
        huffScan([0x00], 1, 63, 0),
        dht(0x10),
      ),
      message: "The JPEG's component 1 uses AC Huffman table 0, which no DHT defines before its scan.",
    },
    {
      name: "a progressive (SOF2) DC first scan using DC table 1 with no DHT",
      bytes: jpegOf(dqt(0), frame([0], 0xc2), huffScan([0x10], 0, 0, 0)),
      message: "The JPEG's component 1 uses DC Huffman table 1, which no DHT defines before its scan.",
    },
    {
      name: "a lossless (SOF3) scan using DC table 0 with no DHT",
      bytes: jpegOf(frame([0], 0xc3), huffScan([0x00], 1, 0, 0)),
      message: "The JPEG's component 1 uses DC Huffman table 0, which no DHT defines before its scan.",
    },
    {
      name: "a lossless (SOF3) scan using DC table 1 with no DHT",
      bytes: jpegOf(frame([0], 0xc3), huffScan([0x10], 1, 0, 0)),
      message: "The JPEG's component 1 uses DC Huffman table 1, which no DHT defines before its scan.",
    },
    {
      name: "a baseline scan using AC table 4",
      bytes: jpegOf(dqt(0), frame([0]), huffScan([0x04])),
      message: "The JPEG's component 1 uses AC Huffman table 4; tables 0 to 3 exist.",
    },
    {
      name: "a DHT for DC table 4",
      bytes: jpegOf(dqt(0), dht(0x04), frame([0]), scan(1)),
      message: "The JPEG defines DC Huffman table 4; tables 0 to 3 exist.",
    },
    {
      name: "a DHT whose counts claim more values than its segment holds",
      bytes: jpegOf(dqt(0), seg(0xc4, [0x00, 0, 5, ...new Array(14).fill(0), 0, 1]), frame([0]), scan(1)),
      message: "The JPEG's Huffman table (DHT) has more values than its segment holds.",
    },
    // Huffman tables' contents: jdhuff.c jpeg_make_d_derived_tbl, when a scan uses the table (JERR_BAD_HUFF_TABLE).
    {
      name: "a baseline scan whose DC table has two 1-bit codes (the second is all ones)",
      bytes: jpegOf(dqt(0), huffTable(0x00, [2], [0, 1]), frame([0]), huffScan([0x00])),
      message: "The JPEG's DC Huffman table 0, which component 1 uses, has more codes than its code lengths allow.",
    },
    {
      name: "a baseline scan whose AC table has one code of each length and a second 16-bit one",
      bytes: jpegOf(
        dqt(0),
        huffTable(0x11, [...fullCounts.slice(0, 15), 2], symbols(17)),
        frame([0, 0]),
        huffScan([0x00, 0x11]),
      ),
      message: "The JPEG's AC Huffman table 1, which component 2 uses, has more codes than its code lengths allow.",
    },
    {
      name: "a baseline scan whose DC table has four 2-bit codes after none of 1 bit",
      bytes: jpegOf(dqt(0), huffTable(0x00, [0, 4], [0, 1, 2, 3]), frame([0]), huffScan([0x00])),
      message: "The JPEG's DC Huffman table 0, which component 1 uses, has more codes than its code lengths allow.",
    },
    {
      name: "a progressive AC scan whose AC table is overfull",
      bytes: jpegOf(
        dqt(0),
        dht(0x00),
        huffTable(0x10, [3], [0, 1, 2]),
        frame([0], 0xc2),
        huffScan([0x00], 0, 0, 0),
        huffScan([0x00], 1, 63, 0),
      ),
      message: "The JPEG's AC Huffman table 0, which component 1 uses, has more codes than its code lengths allow.",
    },
    {
      name: "a baseline scan whose DC table has the symbol 16",
      bytes: jpegOf(dqt(0), huffTable(0x00, [0, 2], [15, 16]), frame([0]), huffScan([0x00])),
      message:
        "The JPEG's DC Huffman table 0, which component 1 uses, has the symbol 16; a DC table's symbols are 0 to 15.",
    },
    {
      name: "a progressive DC first scan whose DC table has the symbol 200",
      bytes: jpegOf(dqt(0), huffTable(0x01, [1], [200]), frame([0], 0xc2), huffScan([0x10], 0, 0, 0)),
      message:
        "The JPEG's DC Huffman table 1, which component 1 uses, has the symbol 200; a DC table's symbols are 0 to 15.",
    },
    {
      name: "a lossless (SOF3) scan whose DC table has the symbol 17",
      bytes: jpegOf(huffTable(0x00, [0, 2], [16, 17]), frame([0], 0xc3), huffScan([0x00], 1, 0, 0)),
      message:
        "The JPEG's DC Huffman table 0, which component 1 uses, has the symbol 17; a DC table's symbols are 0 to 16 in a lossless frame.",
    },
    {
      name: "a DHT with bytes left over after its last whole table",
      bytes: jpegOf(dqt(0), seg(0xc4, [0x00, 1, ...new Array(15).fill(0), 0, 0x10, 1]), frame([0]), scan(1)),
      message: "The JPEG's Huffman table segment (DHT) ends inside a table.",
    },
  ])("refuses $name as corrupt", ({ bytes, message }) => {
    expect(inspectImage(bytes)).toEqual({ ok: false, reason: "corrupt", type: "image/jpeg", message });
  });
});

/** A PNG whose IHDR (with a correct CRC) gives these dimensions. */
function readyPngWithIhdr(width: number, height: number): Uint8Array {
  const bytes = png(1, 1).slice();
  const view = new DataView(bytes.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  view.setUint32(29, crc32(bytes.subarray(12, 29)));
  return bytes;
}

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

describe("renderPng: the builtin image engine", () => {
  const meanRgb = (bytes: Uint8Array) => {
    const file = readPng(bytes);
    const px = unfilterRgb(file.scanlines, file.width, file.height);
    const sum = [0, 0, 0];
    for (let i = 0; i < px.length; i++) sum[i % 3] += px[i];
    return sum.map((s) => s / (px.length / 3));
  };

  it("is deterministic: the same prompt, size and seed give byte-identical PNGs", () => {
    const req = { prompt: "A lighthouse on a cliff at dawn", width: 256, height: 192, seed: 42 };
    expect(Buffer.compare(renderPng(req), renderPng({ ...req }))).toBe(0);
  });

  it("changes with the prompt, the seed and the size", () => {
    const base = { prompt: "A lighthouse on a cliff at dawn", width: 128, height: 128, seed: 0 };
    const a = renderPng(base);
    expect(Buffer.compare(a, renderPng({ ...base, prompt: "A lighthouse on a cliff at dusk" }))).not.toBe(0);
    expect(Buffer.compare(a, renderPng({ ...base, seed: 1 }))).not.toBe(0);
    expect(Buffer.compare(a, renderPng({ ...base, width: 129 }))).not.toBe(0);
  });

  it.each([
    [64, 64],
    [64, 2048],
    [333, 97],
  ])("renders a valid %i × %i PNG: every CRC right, IHDR as requested, scanlines complete", (width, height) => {
    const file = readPng(renderPng({ prompt: "sizes", width, height, seed: 7 }));
    expect(file.chunks[0].type).toBe("IHDR");
    expect(file.chunks.at(-1)?.type).toBe("IEND");
    expect(file.chunks.every((c) => c.crcOk)).toBe(true);
    expect([file.width, file.height, file.bitDepth, file.colourType]).toEqual([width, height, 8, 2]);
    expect(file.scanlines.length).toBe((width * 3 + 1) * height);
    expect(() => unfilterRgb(file.scanlines, width, height)).not.toThrow();
  });

  it("draws something: the picture is not one flat colour", () => {
    const file = readPng(renderPng({ prompt: "anything at all", width: 96, height: 96, seed: 3 }));
    const px = unfilterRgb(file.scanlines, 96, 96);
    const colours = new Set<number>();
    for (let i = 0; i < px.length; i += 3) colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
    expect(colours.size).toBeGreaterThan(50);
  });

  it("takes the colours the prompt names", () => {
    const red = meanRgb(renderPng({ prompt: "red red red", width: 96, height: 96, seed: 0 }));
    const blue = meanRgb(renderPng({ prompt: "blue blue blue", width: 96, height: 96, seed: 0 }));
    expect(red[0] - red[2]).toBeGreaterThan(blue[0] - blue[2]);
  });

  it("renders 1024 × 1024 well within a second", () => {
    const started = performance.now();
    renderPng({ prompt: "speed", width: 1024, height: 1024, seed: 0 });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
