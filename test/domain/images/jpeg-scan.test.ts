/**
 * JPEG scans: parameters, sampling, MCUs, restarts and precision as libjpeg-turbo checks them
 * (src/domain/images/jpeg-scan.ts).
 */
import { describe, expect, it } from "vitest";
import { inspectImage } from "../../../src/domain/images/inspect.js";
import { dht, dqt, frame, huffScan, jpegOf, sampledFrame, scan, seg } from "./jpeg-segments.js";

describe("JPEG progressive scans, sampling factors and MCUs: refused exactly where libjpeg(-turbo) refuses them", () => {
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
});

describe("JPEG restart intervals and sample precision: refused exactly where libjpeg(-turbo) refuses them", () => {
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
});
