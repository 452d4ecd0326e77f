/** JPEG: the marker segments as libjpeg-turbo reads them (src/domain/images/jpeg.ts). */
import { describe, expect, it } from "vitest";
import { inspectImage } from "../../../src/domain/images/inspect.js";
import { jpeg } from "../../helpers/images.js";
import { mutate, splice } from "./fixtures.js";
import { dht, dqt, frame, huffScan, jpegOf, scan } from "./jpeg-segments.js";

describe("the structure behind the header is checked, as far as a viewer needs it to open the file: JPEG", () => {
  /** Where a two-byte marker last occurs (JPEG markers; the APP1 of jpeg() holds a decoy FF C0). */
  const lastMarker = (bytes: Uint8Array, marker: number) => {
    for (let i = bytes.length - 2; i >= 0; i--) if (bytes[i] === 0xff && bytes[i + 1] === marker) return i;
    throw new Error("no such marker");
  };

  const jpg = jpeg(64, 48);
  const sof = lastMarker(jpg, 0xc0);
  const sos = lastMarker(jpg, 0xda);

  it.each([
    { name: "JPEG with bytes after EOI", bytes: Uint8Array.from([...jpg, 0, 0, 0]) },
    {
      name: "JPEG whose scan data holds stuffed bytes, restart markers and fill bytes",
      bytes: splice(jpg, jpg.length - 2, [0xff, 0x00, 0xff, 0xd0, 0x55, 0xff, 0xff, 0xd1]),
    },
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

  it.each([
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
  ])("refuses $name as corrupt, saying what is wrong", ({ bytes, message }) => {
    const result = inspectImage(bytes);
    expect(result).toMatchObject({ ok: false, reason: "corrupt", message: expect.stringMatching(message) });
  });
});

describe("JPEG hierarchical frames: refused exactly where libjpeg(-turbo) refuses them", () => {
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
});
