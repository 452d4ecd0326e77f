/**
 * JPEG: the marker segments after SOI walked as libjpeg-turbo reads them, each segment read by its own file
 * (jpeg-frame.ts, jpeg-tables.ts, jpeg-scan.ts), and the frame's size.
 */
import { type JpegState, newJpegState, readFrameHeader } from "./jpeg-frame.js";
import { readScanHeader } from "./jpeg-scan.js";
import { readHuffmanTables, readQuantTables } from "./jpeg-tables.js";
import { corrupt, Reader, type Size } from "./reader.js";

// The start-of-frame markers libjpeg-turbo decodes, which carry the frame's size; C4 (DHT), C8 (JPG) and CC (DAC)
// share the range but are not frames.
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc9, 0xca, 0xcb]);
// The hierarchical (differential) frames, SOF5–7 and SOF13–15, which libjpeg-turbo refuses as soon as it meets the
// marker (jdmarker.c read_markers: JERR_SOF_UNSUPPORTED, "Unsupported JPEG process").
const JPEG_HIERARCHICAL = new Set([0xc5, 0xc6, 0xc7, 0xcd, 0xce, 0xcf]);

/**
 * The size of a JPEG's frame, read once its structure is checked as libjpeg-turbo reads it. It walks the marker
 * segments after SOI by their lengths (never scanning inside one), and the entropy-coded data after each SOS to its
 * next marker, up to EOI, skipping the junk libjpeg-turbo skips before a marker (bytes other than 0xFF, stuffed FF 00
 * pairs and fill bytes: jpegNextMarker): one frame header (SOFn) whose length fits its component count, before the
 * first scan, and none of the hierarchical ones libjpeg-turbo refuses (SOF5–7, SOF13–15) nor a marker it does not know
 * (JPG, DHP, EXP, JPGn, RESn: only APPn, COM and DNL are skipped by their length, one of length 0 or 1 as if it were 2,
 * as libjpeg-turbo skips it); at least one scan header (SOS) of the right length; and the EOI. Bytes after EOI are
 * ignored.
 *
 * Quantization tables as libjpeg-turbo (Chrome's, Firefox's and Android's decoder) requires them (jdmarker.c get_dqt,
 * get_sos; jdinput.c latch_quant_tables): a DQT holds whole tables, each a precision/slot byte and 64 values of 8 or (a
 * non-zero precision) 16 bits, the slot 0–3 ("Bogus DQT index"); a segment whose length ends inside a table is refused
 * ("Bogus marker length": libjpeg-turbo reads 64 values whatever the length, then finds it overrun). A component of a
 * DCT frame uses a slot that a DQT defined before the first scan that holds the component ("Quantization table 0x.. was
 * not defined"; T.81 B.2.4.1: the table must be installed before that scan); a lossless frame (SOF3) uses none. A later
 * DQT may redefine a slot. Components are the frame header's, by their place: old encoders give every component the
 * same ID, and a scan's components are matched to the frame's as libjpeg-turbo matches them (scanComponents). Huffman
 * tables as libjpeg-turbo's get_dht reads them (whole tables, DC and AC slots 0–3) and its entropy decoders look them
 * up when a scan starts: each table the scan uses (see JpegCoding) exists then: a slot a DHT before the scan defined,
 * or in a sequential frame slot 0 or 1 (the standard tables fill them when no DHT did; progressive and lossless frames
 * have no standard tables), and a table a DHT defined is one libjpeg-turbo builds then: codes that fit their lengths,
 * DC symbols 0 to 15 (16 lossless) (checkHuffmanTable). The coded data is not decoded. The frame's sample precision as
 * libjpeg-turbo requires it, once the first scan header is read (checkPrecision), then each component's sampling
 * factors (1 to 4), and then that it is not lossless and arithmetic-coded (SOF11). Each scan's parameters as
 * libjpeg-turbo checks them when the scan starts: by progression in a progressive frame (checkProgression), as a
 * lossless scan's in a lossless one (checkLosslessScan), whose restart interval must then be whole MCU rows
 * (checkLosslessRestart); a sequential scan's draw only a warning there (JWRN_NOT_SEQUENTIAL) and are not checked. A
 * DRI's length is 4. Before any of that, an interleaved scan's MCU holds at most 10 blocks.
 */
export function jpegSize(bytes: Uint8Array): Size {
  const r = new Reader(bytes, "JPEG");
  const state = newJpegState();
  let at = 2;
  for (;;) {
    at = jpegNextMarker(r, at);
    const marker = bytes[at];
    at += 1;
    // Markers without a length field.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if ((marker === 0xd9 || marker === 0xda) && state.size === null)
      corrupt("The JPEG has no frame header (SOFn) before its image data.");
    if (marker === 0xd9) {
      if (state.scans === 0) corrupt("The JPEG has no image data (SOS) before its end (EOI).");
      return state.size!;
    }
    refuseOnMarker(marker);
    const length = r.u16be(at);
    // An APPn, COM or DNL segment of length 0 or 1 is skipped without error: jdmarker.c skip_variable,
    // get_interesting_appn and save_marker take 2 from the length and skip the rest only if it is above 0, so the
    // next marker is looked for right after the length's two bytes.
    if (length < 2 && ((marker >= 0xe0 && marker <= 0xef) || marker === 0xfe || marker === 0xdc)) {
      at += 2;
      continue;
    }
    // Any other segment below 2 is refused there: get_dqt, get_dht and get_dac find the length short of 0 after
    // taking 2 from it, get_sof, get_sos and get_dri find it does not fit ("Bogus marker length").
    if (length < 2) corrupt("The JPEG has a marker segment with an invalid length.");
    r.need(at + length);
    at = readSegment(r, state, marker, at, length);
  }
}

/**
 * Refuses the markers libjpeg-turbo refuses on the marker itself, before its length is read: a second SOI (get_soi:
 * JERR_SOI_DUPLICATE), the hierarchical frames, and the markers it does not know.
 */
function refuseOnMarker(marker: number): void {
  if (marker === 0xd8) corrupt("The JPEG has a malformed marker segment.");
  if (JPEG_HIERARCHICAL.has(marker))
    corrupt(`The file is a hierarchical JPEG (SOF${marker - 0xc0}), which browsers do not decode.`);
  // JPG, reserved for extensions, is refused with the hierarchical frames (JERR_SOF_UNSUPPORTED); DHP and EXP (the
  // hierarchical mode's), JPGn and the reserved RESn fall to read_markers' default case (JERR_UNKNOWN_MARKER).
  // Only APPn, COM and DNL are skipped by their length.
  if (marker === 0xc8 || marker === 0xde || marker === 0xdf || marker <= 0xbf || (marker >= 0xf0 && marker <= 0xfd))
    corrupt(`The JPEG has a reserved marker (0xFF${hex2(marker)}), which browsers refuse.`);
}

/**
 * Reads the segment of `length` bytes at `at` (its length field) that `marker` starts, and says where the next
 * marker is looked for: after a scan header, past its entropy-coded data; after any other segment, right after it.
 */
function readSegment(r: Reader, state: JpegState, marker: number, at: number, length: number): number {
  if (JPEG_SOF.has(marker)) readFrameHeader(r, state, marker, at, length);
  else if (marker === 0xdb) readQuantTables(r.bytes, state, at, length);
  else if (marker === 0xdd) readRestartInterval(r, state, at, length);
  else if (marker === 0xc4) readHuffmanTables(r.bytes, state, at, length);
  else if (marker === 0xda) {
    readScanHeader(r, state, at, length);
    return skipEntropyCodedData(r.bytes, at + length);
  }
  return at + length;
}

/** Reads a DRI segment, whose length is 4 (jdmarker.c get_dri: JERR_BAD_LENGTH, "Bogus marker length"). */
function readRestartInterval(r: Reader, state: JpegState, at: number, length: number): void {
  if (length !== 4) corrupt(`The JPEG's restart interval segment (DRI) has length ${length}, not 4.`);
  state.restartInterval = r.u16be(at + 2);
}

/**
 * Where a scan's entropy-coded data from `at` ends: at the next 0xFF that is not a stuffed 0xFF00, a restart marker
 * or a fill byte. A plain loop: indexOf per 0xFF took 80 ms for 10 MiB of stuffed bytes.
 */
function skipEntropyCodedData(bytes: Uint8Array, at: number): number {
  const last = bytes.length - 1;
  while (at < last) {
    if (bytes[at] !== 0xff) at++;
    else {
      const next = bytes[at + 1];
      if (next === 0xff) at++;
      else if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) at += 2;
      else break;
    }
  }
  if (at >= last) corrupt("The JPEG ends without an end-of-image marker (EOI).");
  return at;
}

/**
 * Where the code of the next JPEG marker from `at` is, found as libjpeg-turbo's jdmarker.c next_marker finds every
 * marker after SOI (read_markers; only SOI itself, first_marker, must be FF D8 at the start): bytes other than 0xFF
 * and stuffed FF 00 pairs before it are skipped with a warning (JWRN_EXTRANEOUS_DATA, "Corrupt JPEG data: N
 * extraneous bytes before marker"), as are fill bytes (repeated 0xFF). So junk between marker segments, or after a
 * scan's data, does not stop the decoder; a file that ends before a marker is truncated.
 */
function jpegNextMarker(r: Reader, at: number): number {
  const bytes = r.bytes;
  for (;;) {
    // A plain loop, as for the scan data: the junk may be megabytes.
    while (at < bytes.length && bytes[at] !== 0xff) at++;
    while (at < bytes.length && bytes[at] === 0xff) at++;
    r.need(at + 1);
    if (bytes[at] !== 0x00) return at;
    at++;
  }
}

/** A byte as two upper-case hexadecimal digits. */
function hex2(byte: number): string {
  return byte.toString(16).toUpperCase().padStart(2, "0");
}
