/**
 * Images: recognising a file's type by its bytes alone, checking its structure and reading its dimensions, and the
 * builtin engine that renders a deterministic PNG from a prompt (encoded here with node:zlib).
 */
import { createHash } from "node:crypto";
import { crc32, deflateSync } from "node:zlib";

/** The largest image accepted, in bytes of the image itself (DESIGN §3). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/** The image types the service stores; nothing else is accepted. */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

/** One of IMAGE_TYPES. */
export type ImageType = (typeof IMAGE_TYPES)[number];

/** What inspecting a file's bytes found: a known image with its size, or why it is refused. */
export type Inspection =
  | { ok: true; type: ImageType; width: number; height: number }
  | { ok: false; reason: "unsupported"; message: string }
  | { ok: false; reason: "corrupt"; type: ImageType | null; message: string };

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, prefix: number[] | string, at = 0): boolean {
  const want = typeof prefix === "string" ? [...prefix].map((c) => c.charCodeAt(0)) : prefix;
  if (bytes.length < at + want.length) return false;
  return want.every((b, i) => bytes[at + i] === b);
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

/**
 * The image type named by the file's leading bytes (its magic number), or null. The file name and any claimed
 * Content-Type are never consulted: only this decides what a file is.
 */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  if (startsWith(bytes, PNG_SIGNATURE)) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, "GIF87a") || startsWith(bytes, "GIF89a")) return "image/gif";
  if (startsWith(bytes, "RIFF") && startsWith(bytes, "WEBP", 8)) return "image/webp";
  return null;
}

/**
 * The largest width and height accepted, in pixels a side: a bound on what a client that opens the image must
 * decode (16,384 × 16,384 is already 1 GiB of RGBA), and WebP's own limit for a still image.
 */
export const MAX_IMAGE_SIDE = 16_384;

/** A file that is truncated or does not follow its format's structure; the message says what is wrong. */
export class ImageHeaderError extends Error {}

function corrupt(message: string): never {
  throw new ImageHeaderError(message);
}

/** Bounds-checked little- and big-endian reads that report truncation instead of reading past the end. */
class Reader {
  constructor(
    readonly bytes: Uint8Array,
    readonly format: string,
  ) {}
  need(end: number): void {
    if (end > this.bytes.length) corrupt(`The ${this.format} file is truncated.`);
  }
  u8(at: number): number {
    this.need(at + 1);
    return this.bytes[at];
  }
  u16be(at: number): number {
    this.need(at + 2);
    return (this.bytes[at] << 8) | this.bytes[at + 1];
  }
  u16le(at: number): number {
    this.need(at + 2);
    return this.bytes[at] | (this.bytes[at + 1] << 8);
  }
  u24le(at: number): number {
    this.need(at + 3);
    return this.bytes[at] | (this.bytes[at + 1] << 8) | (this.bytes[at + 2] << 16);
  }
  u32be(at: number): number {
    this.need(at + 4);
    return (
      ((this.bytes[at] << 24) >>> 0) + ((this.bytes[at + 1] << 16) | (this.bytes[at + 2] << 8) | this.bytes[at + 3])
    );
  }
  u32le(at: number): number {
    this.need(at + 4);
    return (
      ((this.bytes[at + 3] << 24) >>> 0) + ((this.bytes[at + 2] << 16) | (this.bytes[at + 1] << 8) | this.bytes[at])
    );
  }
}

type Size = { width: number; height: number };

const PNG_COLOUR_DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

/**
 * PNG: IHDR right after the signature, then every chunk to IEND, as a decoder such as libpng requires: each chunk
 * whole, critical chunks (IHDR, PLTE, IDAT, IEND) with a correct CRC and no unknown critical chunk (an ancillary
 * chunk's CRC is not checked: decoders drop such a chunk and show the image), a PLTE before the image data of a
 * palette image, one run of IDAT chunks whose data starts with a zlib header, and an IEND. The image data is not
 * inflated.
 */
function pngSize(bytes: Uint8Array): Size {
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

// The start-of-frame markers libjpeg-turbo decodes, which carry the frame's size; C4 (DHT), C8 (JPG) and CC (DAC)
// share the range but are not frames.
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc9, 0xca, 0xcb]);
// The hierarchical (differential) frames, SOF5–7 and SOF13–15, which libjpeg-turbo refuses as soon as it meets the
// marker (jdmarker.c read_markers: JERR_SOF_UNSUPPORTED, "Unsupported JPEG process").
const JPEG_HIERARCHICAL = new Set([0xc5, 0xc6, 0xc7, 0xcd, 0xce, 0xcf]);
// The lossless frames (T.81 H.1), which use no quantization table; libjpeg-turbo reads SOF11's header but refuses to
// decode it (see jpegSize).
const JPEG_LOSSLESS = new Set([0xc3, 0xcb]);
// The progressive frames, Huffman- (SOF2) or arithmetic-coded (SOF10), whose scans are checked by progression.
const JPEG_PROGRESSIVE = new Set([0xc2, 0xca]);
/**
 * How a frame's scans are entropy-coded, which decides the Huffman tables a scan uses: sequential (SOF0, 1) the DC
 * and AC tables of each of its components, progressive (SOF2) the DC table in a first DC scan, none in a DC
 * refinement, the AC table in an AC scan, lossless (SOF3) the DC table; arithmetic coding (SOF9 and up) none.
 */
type JpegCoding = "sequential" | "progressive" | "lossless" | "arithmetic";
function jpegCoding(sof: number): JpegCoding {
  if (sof >= 0xc9) return "arithmetic";
  if (sof === 0xc2) return "progressive";
  if (sof === 0xc3) return "lossless";
  return "sequential";
}
/** The most components a frame may have (libjpeg-turbo's MAX_COMPONENTS) and a scan may hold (MAX_COMPS_IN_SCAN). */
const JPEG_MAX_COMPONENTS = 10;
const JPEG_MAX_COMPS_IN_SCAN = 4;
/** The most blocks (data units) an interleaved scan's MCU may hold (libjpeg-turbo's D_MAX_BLOCKS_IN_MCU). */
const JPEG_MAX_BLOCKS_IN_MCU = 10;

/**
 * JPEG: walks the marker segments after SOI by their lengths (never scanning inside one), and the entropy-coded data
 * after each SOS to its next marker, up to EOI, skipping the junk libjpeg-turbo skips before a marker (bytes other than
 * 0xFF, stuffed FF 00 pairs and fill bytes: jpegNextMarker): one frame header (SOFn) whose length fits its component count, before
 * the first scan, and none of the hierarchical ones libjpeg-turbo refuses (SOF5–7, SOF13–15) nor a marker it does not
 * know (JPG, DHP, EXP, JPGn, RESn: only APPn, COM and DNL are skipped by their length, one of length 0 or 1 as if it
 * were 2, as libjpeg-turbo skips it); at least one scan
 * header (SOS) of the right length; and the EOI. Bytes after EOI are ignored.
 *
 * Quantization tables as libjpeg-turbo (Chrome's, Firefox's and Android's decoder) requires them (jdmarker.c get_dqt,
 * get_sos; jdinput.c latch_quant_tables): a DQT holds whole tables, each a precision/slot byte and 64 values of 8 or
 * (a non-zero precision) 16 bits, the slot 0–3 ("Bogus DQT index"); a segment whose length ends inside a table is
 * refused ("Bogus marker length": libjpeg-turbo reads 64 values whatever the length, then finds it overrun). A
 * component of a DCT frame uses a slot that a DQT defined before the first scan that holds the component
 * ("Quantization table 0x.. was not defined"; T.81 B.2.4.1: the table must be installed before that scan); a lossless
 * frame (SOF3) uses none. A later DQT may redefine a slot. Components are the frame header's, by their
 * place: old encoders give every component the same ID, and a scan's components are matched to the frame's as
 * libjpeg-turbo matches them (scanComponents). Huffman tables as libjpeg-turbo's get_dht reads them (whole tables,
 * DC and AC slots 0–3) and its entropy decoders look them up when a scan starts: each table the scan uses (see
 * JpegCoding) exists then: a slot a DHT before the scan defined, or in a sequential frame slot 0 or 1 (the standard
 * tables fill them when no DHT did; progressive and lossless frames have no standard tables), and a table a DHT defined
 * is one libjpeg-turbo builds then: codes that fit their lengths, DC symbols 0 to 15 (16 lossless) (checkHuffmanTable).
 * The coded data is not decoded. The frame's sample precision as libjpeg-turbo requires it, once
 * the first scan header is read (checkPrecision), then each component's sampling factors (1 to 4), and then that it
 * is not lossless and arithmetic-coded (SOF11). Each
 * scan's parameters as libjpeg-turbo checks them when the scan starts: by progression in a progressive frame
 * (checkProgression), as a lossless scan's in a lossless one (checkLosslessScan), whose restart interval must then be
 * whole MCU rows (checkLosslessRestart); a sequential scan's draw only a warning there (JWRN_NOT_SEQUENTIAL) and are
 * not checked. A DRI's length is 4. Before any of that, an interleaved scan's MCU holds at most 10 blocks.
 */
function jpegSize(bytes: Uint8Array): Size {
  const r = new Reader(bytes, "JPEG");
  let size: Size | null = null;
  let scans = 0;
  let at = 2;
  /** The quantization table slots a DQT has defined so far (bits 0–3). */
  let quantDefined = 0;
  /** The frame's components, by their place in its header: ID, quantization slot, whether a scan checked it. */
  let frameComponents: JpegComponent[] = [];
  let lossless = false;
  let progressive = false;
  /** The frame's sample precision (P), in bits. */
  let precision = 0;
  let coding: JpegCoding = "sequential";
  /** The Huffman tables the DHTs so far defined, as libjpeg-turbo will check them: 0–3 the DC slots, 4–7 the AC ones. */
  const huffman: (JpegHuffmanTable | null)[] = new Array(8).fill(null);
  /** The restart interval the last DRI set, in MCUs (0: none). */
  let restartInterval = 0;
  for (;;) {
    at = jpegNextMarker(r, at);
    const marker = bytes[at];
    at += 1;
    // Markers without a length field.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if ((marker === 0xd9 || marker === 0xda) && size === null)
      corrupt("The JPEG has no frame header (SOFn) before its image data.");
    if (marker === 0xd9) {
      if (scans === 0) corrupt("The JPEG has no image data (SOS) before its end (EOI).");
      return size!;
    }
    // A second SOI (get_soi: JERR_SOI_DUPLICATE).
    if (marker === 0xd8) corrupt("The JPEG has a malformed marker segment.");
    // Refused on the marker itself, before its length is read.
    if (JPEG_HIERARCHICAL.has(marker))
      corrupt(`The file is a hierarchical JPEG (SOF${marker - 0xc0}), which browsers do not decode.`);
    // JPG, reserved for extensions, is refused with the hierarchical frames (JERR_SOF_UNSUPPORTED); DHP and EXP (the
    // hierarchical mode's), JPGn and the reserved RESn fall to read_markers' default case (JERR_UNKNOWN_MARKER).
    // Only APPn, COM and DNL are skipped by their length.
    if (marker === 0xc8 || marker === 0xde || marker === 0xdf || marker <= 0xbf || (marker >= 0xf0 && marker <= 0xfd))
      corrupt(`The JPEG has a reserved marker (0xFF${hex2(marker)}), which browsers refuse.`);
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
    if (JPEG_SOF.has(marker)) {
      if (size !== null) corrupt("The JPEG has more than one frame header (SOFn).");
      if (length < 8) corrupt("The JPEG's frame header is too short.");
      const components = r.u8(at + 7);
      if (components === 0 || length !== 8 + 3 * components)
        corrupt("The JPEG's frame header does not match its number of components.");
      // libjpeg-turbo's MAX_COMPONENTS (jdinput.c initial_setup: JERR_COMPONENT_COUNT).
      if (components > JPEG_MAX_COMPONENTS)
        corrupt(`The JPEG's frame header has ${components} components; at most ${JPEG_MAX_COMPONENTS} are decoded.`);
      size = { height: r.u16be(at + 3), width: r.u16be(at + 5) };
      lossless = JPEG_LOSSLESS.has(marker);
      progressive = JPEG_PROGRESSIVE.has(marker);
      precision = r.u8(at + 2);
      coding = jpegCoding(marker);
      frameComponents = Array.from({ length: components }, (_, c) => ({
        id: r.u8(at + 8 + 3 * c),
        slot: r.u8(at + 10 + 3 * c),
        h: r.u8(at + 9 + 3 * c) >> 4,
        v: r.u8(at + 9 + 3 * c) & 0x0f,
        latched: false,
      }));
    } else if (marker === 0xdb) {
      // Whole tables, as libjpeg-turbo reads them: a leftover byte is another table's precision/slot byte.
      const end = at + length;
      for (let t = at + 2; t < end; ) {
        const slot = bytes[t] & 0x0f;
        if (slot > 3) corrupt(`The JPEG defines quantization table ${slot}; tables 0 to 3 exist.`);
        t += 1 + (bytes[t] >> 4 ? 128 : 64);
        if (t > end) corrupt(`The JPEG's quantization table ${slot} (DQT) is cut short by its segment's length.`);
        quantDefined |= 1 << slot;
      }
    } else if (marker === 0xdd) {
      // jdmarker.c get_dri: JERR_BAD_LENGTH, "Bogus marker length".
      if (length !== 4) corrupt(`The JPEG's restart interval segment (DRI) has length ${length}, not 4.`);
      restartInterval = r.u16be(at + 2);
    } else if (marker === 0xc4) {
      // Whole tables, as libjpeg-turbo's get_dht reads them: a class/slot byte, 16 code counts and that many values,
      // while more than 16 bytes are left; then the segment must be used up.
      const end = at + length;
      let t = at + 2;
      while (end - t > 16) {
        const index = bytes[t];
        let count = 0;
        // The codes' share of the code space, in units of a 16-bit code's (Kraft's sum times 2^16).
        let space = 0;
        for (let i = 1; i <= 16; i++) {
          count += bytes[t + i];
          space += bytes[t + i] * 2 ** (16 - i);
        }
        t += 17;
        if (count > 256 || count > end - t)
          corrupt("The JPEG's Huffman table (DHT) has more values than its segment holds.");
        let maxSymbol = 0;
        for (let i = 0; i < count; i++) maxSymbol = Math.max(maxSymbol, bytes[t + i]);
        t += count;
        const ac = (index & 0x10) !== 0;
        const slot = ac ? index - 0x10 : index;
        if (slot > 3) corrupt(`The JPEG defines ${ac ? "AC" : "DC"} Huffman table ${slot}; tables 0 to 3 exist.`);
        // jdhuff.c jpeg_make_d_derived_tbl refuses a table whose codes do not fit their lengths (no code may be all
        // ones, so the share must stay below the whole space), but only when a scan uses it.
        huffman[(ac ? 4 : 0) + slot] = { overfull: space >= 2 ** 16, maxSymbol };
      }
      if (t !== end) corrupt("The JPEG's Huffman table segment (DHT) ends inside a table.");
    } else if (marker === 0xda) {
      const components = length >= 3 ? r.u8(at + 2) : 0;
      // libjpeg-turbo's MAX_COMPS_IN_SCAN (jdmarker.c get_sos, which reports it as a bad length).
      if (components > JPEG_MAX_COMPS_IN_SCAN)
        corrupt(
          `The JPEG's scan header (SOS) names ${components} components; a scan holds at most ${JPEG_MAX_COMPS_IN_SCAN}.`,
        );
      if (components < 1 || length !== 6 + 2 * components) corrupt("The JPEG has a malformed scan header (SOS).");
      const ids = Array.from({ length: components }, (_, c) => r.u8(at + 3 + 2 * c));
      const inScan = scanComponents(frameComponents, ids);
      // When the first scan header has been read, libjpeg-turbo sets the frame up (jdinput.c initial_setup).
      if (scans === 0) {
        checkPrecision(precision, lossless);
        // Then each component's sampling factors (JERR_BAD_SAMPLING): MAX_SAMP_FACTOR is 4.
        frameComponents.forEach(({ h, v }, c) => {
          if (h < 1 || h > 4 || v < 1 || v > 4)
            corrupt(
              `The JPEG's component ${componentName(frameComponents, c)} has sampling factors ${h} × ${v}; each is 1 to 4.`,
            );
        });
        // Then jdmaster.c master_selection refuses arithmetic coding in a lossless frame (JERR_ARITH_NOTIMPL), in
        // every build: libjpeg-turbo has no lossless arithmetic decoder.
        if (lossless && coding === "arithmetic")
          corrupt("The file is a lossless arithmetic-coded JPEG (SOF11), which browsers do not decode.");
      }
      // When the scan starts, jdinput.c per_scan_setup counts its MCU's blocks (data units) before anything else: in
      // a scan of several components, H × V of each, at most D_MAX_BLOCKS_IN_MCU (JERR_BAD_MCU_SIZE).
      if (inScan.length > 1) {
        const blocks = inScan.reduce((sum, c) => sum + frameComponents[c].h * frameComponents[c].v, 0);
        if (blocks > JPEG_MAX_BLOCKS_IN_MCU)
          corrupt(
            `The JPEG's scan of ${inScan.length} components has ${blocks} blocks in an MCU; at most ${JPEG_MAX_BLOCKS_IN_MCU} are decoded.`,
          );
      }
      for (const c of inScan) {
        const component = frameComponents[c];
        // A lossless frame latches no table (jdinput.c start_input_pass).
        if (lossless || component.latched) continue;
        if (component.slot > 3 || !(quantDefined & (1 << component.slot)))
          corrupt(
            `The JPEG's component ${componentName(frameComponents, c)} uses quantization table ${component.slot}, which no DQT defines before its first scan.`,
          );
        component.latched = true;
      }
      const params = at + 3 + 2 * components;
      const scan: JpegScanParameters = {
        ss: bytes[params],
        se: bytes[params + 1],
        ah: bytes[params + 2] >> 4,
        al: bytes[params + 2] & 0x0f,
        components,
      };
      // Checked when the scan starts, after its quantization tables are latched and before its Huffman tables are
      // looked up (jdphuff.c start_pass_phuff_decoder, jdarith.c start_pass).
      if (progressive) checkProgression(scan);
      // The Huffman tables the scan uses, each checked as libjpeg-turbo's entropy decoder checks it when the scan
      // starts (jdhuff.c, jdphuff.c, jdlhuff.c: jpeg_make_d_derived_tbl, "Huffman table 0x.. was not defined").
      const dcBand = scan.ss === 0;
      const refinement = scan.ah !== 0;
      inScan.forEach((c, i) => {
        const tables = bytes[at + 4 + 2 * i];
        const dc =
          coding === "sequential" || coding === "lossless" || (coding === "progressive" && dcBand && !refinement);
        const ac = coding === "sequential" || (coding === "progressive" && !dcBand);
        // Only the sequential decoder has standard tables for slots 0 and 1.
        const standard = coding === "sequential";
        if (dc) checkHuffmanTable(frameComponents, c, "DC", tables >> 4, huffman.slice(0, 4), standard, lossless);
        if (ac) checkHuffmanTable(frameComponents, c, "AC", tables & 0x0f, huffman.slice(4), standard, lossless);
      });
      // Checked after the Huffman tables, when the lossless decoder's input pass starts (jddiffct.c start_input_pass
      // calls jdlossls.c start_pass_lossless).
      if (lossless) {
        checkLosslessScan(scan, precision);
        checkLosslessRestart(restartInterval, size!.width, frameComponents, inScan);
      }
      scans++;
      at += length;
      // The entropy-coded data runs to the next 0xFF that is not a stuffed 0xFF00, a restart marker or a fill byte (a
      // plain loop: indexOf per 0xFF took 80 ms for 10 MiB of stuffed bytes).
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
      continue;
    }
    at += length;
  }
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

/** A scan header's parameters: spectral selection Ss–Se, successive approximation Ah/Al, its number of components. */
interface JpegScanParameters {
  ss: number;
  se: number;
  ah: number;
  al: number;
  components: number;
}

function scanParameters({ ss, se, ah, al }: JpegScanParameters): string {
  return `(Ss ${ss}, Se ${se}, Ah ${ah}, Al ${al})`;
}

/**
 * Refuses a progressive scan whose parameters libjpeg-turbo refuses when the scan starts (jdphuff.c
 * start_pass_phuff_decoder, jdarith.c start_pass: JERR_BAD_PROGRESSION, "Invalid progressive parameters"): a DC scan
 * (Ss 0) must end at Se 0; an AC scan needs Ss ≤ Se ≤ 63 and one component; a refinement (Ah not 0) needs Al = Ah − 1;
 * Al is at most 13. A scan out of order (an AC scan before the component's DC scan, a refinement of bits not yet
 * sent) is only a warning there (JWRN_BOGUS_PROGRESSION), and is accepted.
 */
function checkProgression(scan: JpegScanParameters): void {
  const { ss, se, ah, al, components } = scan;
  let why: string | null = null;
  if (ss === 0 && se !== 0) why = "a DC scan (Ss 0) must end at Se 0";
  else if (ss !== 0 && (ss > se || se > 63)) why = "an AC scan needs Ss ≤ Se ≤ 63";
  else if (ss !== 0 && components !== 1) why = `an AC scan holds one component, not ${components}`;
  else if (ah !== 0 && al !== ah - 1) why = "a refinement scan (Ah not 0) needs Al = Ah − 1";
  else if (al > 13) why = "Al is at most 13";
  if (why !== null) corrupt(`The JPEG's progressive scan ${scanParameters(scan)} is invalid: ${why}.`);
}

/**
 * Refuses a sample precision libjpeg-turbo does not decode (jdinput.c initial_setup, JERR_BAD_PRECISION): 8 or 12
 * bits in a DCT frame, 2 to 16 in a lossless one. Checked before any scan's parameters, so the lossless point transform
 * is only ever compared with a precision that exists.
 */
function checkPrecision(precision: number, lossless: boolean): void {
  if (lossless ? precision < 2 || precision > 16 : precision !== 8 && precision !== 12)
    corrupt(
      `The JPEG's frame header gives a sample precision of ${precision} bits; ${lossless ? "a lossless frame has 2 to 16" : "a DCT (not lossless) frame has 8 or 12"}.`,
    );
}

/**
 * Refuses a lossless scan whose parameters libjpeg-turbo refuses when the scan starts (jdlossls.c start_pass_lossless,
 * JERR_BAD_PROGRESSION): the predictor Ss 1 to 7, Se and Ah 0, the point transform Al below the frame's precision.
 */
function checkLosslessScan(scan: JpegScanParameters, precision: number): void {
  const { ss, se, ah, al } = scan;
  let why: string | null = null;
  if (ss < 1 || ss > 7) why = "its predictor (Ss) must be 1 to 7";
  else if (se !== 0 || ah !== 0) why = "Se and Ah must be 0";
  else if (al >= precision) why = `its point transform (Al) must be below the frame's precision of ${precision} bits`;
  if (why !== null) corrupt(`The JPEG's lossless scan ${scanParameters(scan)} is invalid: ${why}.`);
}

/** A Huffman table as a DHT defined it, reduced to what libjpeg-turbo checks when a scan uses it. */
interface JpegHuffmanTable {
  /** Whether its code counts give more codes of some length than fit, counting the all-ones code as not fitting. */
  overfull: boolean;
  /** Its largest symbol (0 for a table of none). */
  maxSymbol: number;
}

/**
 * Refuses a lossless scan whose restart interval is not a whole number of MCU rows, as libjpeg-turbo refuses it when
 * the scan starts, after its parameters (jddiffct.c start_input_pass: JERR_BAD_RESTART, "Invalid restart interval"):
 * its lossless decoder restarts only at the start of a row. An MCU is one sample of a scan of one component, whose
 * row is ceil(width × H / Hmax) samples, and in a scan of several it covers Hmax samples across, ceil(width / Hmax) to
 * a row (jdinput.c per_scan_setup, a lossless data unit being one sample). A DCT frame restarts anywhere.
 */
function checkLosslessRestart(interval: number, width: number, frame: JpegComponent[], inScan: number[]): void {
  const hMax = Math.max(...frame.map((c) => c.h));
  const perRow = inScan.length === 1 ? Math.ceil((width * frame[inScan[0]].h) / hMax) : Math.ceil(width / hMax);
  // A frame of width 0 is refused as empty elsewhere, as libjpeg-turbo's get_sof refuses it.
  if (perRow > 0 && interval % perRow !== 0)
    corrupt(
      `The JPEG's restart interval of ${interval} MCUs is not a whole number of rows of ${perRow}, which a lossless scan needs.`,
    );
}

/**
 * Refuses a scan's use of a Huffman table slot (0–15 in the scan header) that libjpeg-turbo has no table for: a slot
 * past 3, or one that no DHT defined before the scan. With `standard` (a sequential frame), slots 0 and 1 pass
 * undefined: libjpeg-turbo's sequential decoder fills in the standard tables there (jdhuff.c jinit_huff_decoder calls
 * jstdhuff.c std_huff_tables, for "Motion JPEG" files). Its progressive and lossless decoders (jdphuff.c
 * jinit_phuff_decoder, jdlhuff.c) do not, so in their frames every slot a scan uses needs a DHT before it.
 *
 * A table a DHT defined is then checked as jdhuff.c jpeg_make_d_derived_tbl checks it when the scan starts (every
 * entropy decoder calls it for each table the scan uses; JERR_BAD_HUFF_TABLE, "Bogus Huffman table definition"): its
 * codes must fit their lengths, none all ones (Kraft's sum below 1), and a DC table's symbols, the bit counts of the
 * differences, must be 0 to 15, or 0 to 16 in a lossless frame. An AC table's symbols are not checked there.
 */
function checkHuffmanTable(
  frame: JpegComponent[],
  c: number,
  kind: "DC" | "AC",
  slot: number,
  tables: (JpegHuffmanTable | null)[],
  standard: boolean,
  lossless: boolean,
): void {
  const name = componentName(frame, c);
  if (slot > 3) corrupt(`The JPEG's component ${name} uses ${kind} Huffman table ${slot}; tables 0 to 3 exist.`);
  const table = tables[slot];
  if (table === null) {
    if (standard && slot <= 1) return;
    corrupt(`The JPEG's component ${name} uses ${kind} Huffman table ${slot}, which no DHT defines before its scan.`);
  }
  if (table.overfull)
    corrupt(
      `The JPEG's ${kind} Huffman table ${slot}, which component ${name} uses, has more codes than its code lengths allow.`,
    );
  const maxSymbol = lossless ? 16 : 15;
  if (kind === "DC" && table.maxSymbol > maxSymbol)
    corrupt(
      `The JPEG's DC Huffman table ${slot}, which component ${name} uses, has the symbol ${table.maxSymbol}; a DC table's symbols are 0 to ${maxSymbol}${lossless ? " in a lossless frame" : ""}.`,
    );
}

/** A JPEG frame header's component, by its place in the header. */
interface JpegComponent {
  id: number;
  /** The quantization table slot it uses (Tq). */
  slot: number;
  /** Its horizontal and vertical sampling factors (H, V). */
  h: number;
  v: number;
  /** Whether a scan has held it: its table was checked then, and a later DQT no longer matters to it. */
  latched: boolean;
}

/**
 * The frame components (their places) a scan header's component IDs name, exactly as libjpeg-turbo's get_sos
 * (jdmarker.c) pairs them: for the scan's i-th ID, the first of the frame's first four components with that ID whose
 * place is not taken, where "taken" reads the scan's own entry at that place (cur_comp_info[ci], a scan-order array
 * read at a frame index), so the search runs from the frame's i-th component on. Repeated IDs (old encoders write
 * the same ID for every component) thus name the components in order, and a scan's i-th component is the frame's i-th
 * or a later one. An
 * ID that finds none, or that finds a component the scan already holds, is refused ("Invalid component ID").
 */
function scanComponents(frame: JpegComponent[], ids: number[]): number[] {
  const inScan: number[] = [];
  const searched = Math.min(frame.length, JPEG_MAX_COMPS_IN_SCAN);
  ids.forEach((id, i) => {
    let found = -1;
    for (let c = 0; c < searched; c++)
      if (frame[c].id === id && inScan[c] === undefined) {
        found = c;
        break;
      }
    if (found < 0) {
      const inFrame = frame.slice(0, searched).filter((f) => f.id === id).length;
      const named = ids.slice(0, i + 1).filter((other) => other === id).length;
      corrupt(
        inFrame === 0
          ? `The JPEG's scan header (SOS) names component ${id}, which its frame header does not have among its first four.`
          : named > inFrame
            ? `The JPEG's scan header (SOS) names component ${id} more often than its frame header has it.`
            : `The JPEG's scan header (SOS) names component ${id} out of the frame header's order; libjpeg-turbo pairs a scan's n-th component with the frame's n-th or a later one.`,
      );
    }
    if (inScan.includes(found))
      corrupt(
        `The JPEG's scan header (SOS) names component ${id} twice; libjpeg-turbo pairs both with the frame's component number ${found + 1}.`,
      );
    inScan.push(found);
  });
  return inScan;
}

/** A frame component as a message names it: its ID, and its place when another component has the same ID. */
function componentName(frame: JpegComponent[], c: number): string {
  const id = frame[c].id;
  return frame.filter((other) => other.id === id).length > 1 ? `${id} (number ${c + 1} in the frame header)` : `${id}`;
}

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
 * GIF: the logical screen descriptor (its size is the image's) and its colour table, then blocks up to the trailer:
 * extensions, and at least one image descriptor with its colour table, LZW code size and data sub-blocks. The LZW
 * data is not decoded. An image's place and size are not compared with the screen: giflib reads them as they are,
 * browsers crop the image to the screen or (Chrome, for the first) enlarge the screen to it. As Chrome shows such a
 * file as large as its first image reaches, MAX_IMAGE_SIDE applies to where the first image ends as well as to the
 * screen: a 1 × 1 screen holding a 65,535 × 65,535 first image is refused. Later images are cropped to the screen
 * everywhere, so their place is not held to it. A screen side of zero (some encoders write a 0 × 0 screen) is where
 * the first image reaches on that side, its left + width or top + height, as Chrome enlarges the screen to it: a
 * 0 × 0 screen whose first image is 40 × 30 at the corner is a 40 × 30 image.
 */
function gifSize(bytes: Uint8Array): Size {
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

/** One chunk of a RIFF container: its type and where its payload is. */
type RiffChunk = { type: string; at: number; size: number };

/** The chunks of bytes[from, end), each whole within it (the padding byte of the last may be missing). */
function riffChunks(r: Reader, from: number, end: number): RiffChunk[] {
  const chunks: RiffChunk[] = [];
  let at = from;
  while (at < end) {
    if (at + 8 > end) corrupt("The WebP has a chunk header cut short by its container's size.");
    const size = r.u32le(at + 4);
    if (at + 8 + size > end) corrupt("The WebP has a chunk that runs past the end of its container.");
    chunks.push({ type: ascii(r.bytes, at, 4), at: at + 8, size });
    at += 8 + size + (size & 1);
  }
  return chunks;
}

/** The size of a VP8 (lossy) or VP8L (lossless) bitstream, from its header, with the checks libwebp makes there. */
function webpBitstreamSize(r: Reader, chunk: RiffChunk): Size {
  const at = chunk.at;
  if (chunk.type === "VP8 ") {
    // A key frame: 3-byte frame tag (bit 0 clear, version 0-3, shown, first partition shorter than the chunk), start
    // code 9D 01 2A, then 14-bit width and height.
    if (chunk.size < 10) corrupt("The WebP VP8 chunk is too short.");
    const tag = r.u24le(at);
    if ((tag & 1) !== 0) corrupt("The WebP VP8 bitstream does not start with a key frame.");
    if (((tag >> 1) & 7) > 3 || ((tag >> 4) & 1) === 0 || tag >> 5 >= chunk.size)
      corrupt("The WebP VP8 frame tag is invalid.");
    if (r.u8(at + 3) !== 0x9d || r.u8(at + 4) !== 0x01 || r.u8(at + 5) !== 0x2a)
      corrupt("The WebP VP8 start code is missing.");
    return { width: r.u16le(at + 6) & 0x3fff, height: r.u16le(at + 8) & 0x3fff };
  }
  // Signature 0x2F, then 14 bits of width - 1, 14 bits of height - 1, an alpha bit and a 3-bit version (0).
  if (chunk.size < 5) corrupt("The WebP VP8L chunk is too short.");
  if (r.u8(at) !== 0x2f) corrupt("The WebP VP8L signature is missing.");
  const bits = r.u32le(at + 1);
  if (bits >>> 29 !== 0) corrupt("The WebP VP8L bitstream has an unknown version.");
  return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
}

const isBitstream = (c: RiffChunk) => c.type === "VP8 " || c.type === "VP8L";

/**
 * WebP: a RIFF container no larger than the bytes sent (bytes after it are ignored) whose chunks are each whole.
 * Simple: a VP8 (lossy) or VP8L (lossless) chunk first. Extended: a VP8X chunk first, whose canvas is the image's
 * size, then a still image's VP8/VP8L chunk of the canvas's size, or an animation's ANIM chunk and ANMF frames that
 * each hold a VP8/VP8L bitstream of the frame's size and lie within the canvas.
 */
function webpSize(bytes: Uint8Array): Size {
  const r = new Reader(bytes, "WebP");
  const riffSize = r.u32le(4);
  if (riffSize + 8 > bytes.length) corrupt("Truncated WebP file: the RIFF header claims more bytes than were sent.");
  const [first, ...rest] = riffChunks(r, 12, 8 + riffSize);
  if (first !== undefined && isBitstream(first)) return webpBitstreamSize(r, first);
  if (first?.type !== "VP8X") return corrupt("The WebP file does not start with a VP8, VP8L or VP8X chunk.");
  // Flags and reserved bytes, then 24-bit canvas width - 1 and height - 1.
  if (first.size < 10) corrupt("The WebP VP8X chunk is too short.");
  const canvas = { width: r.u24le(first.at + 4) + 1, height: r.u24le(first.at + 7) + 1 };
  const animated = (r.u8(first.at) & 0x02) !== 0;
  if (!animated) {
    const image = rest.find(isBitstream);
    if (image === undefined) corrupt("The WebP has no image data (a VP8 or VP8L chunk).");
    const size = webpBitstreamSize(r, image);
    if (size.width !== canvas.width || size.height !== canvas.height)
      corrupt(
        `The WebP's image is ${size.width} × ${size.height} but its canvas (VP8X) is ${canvas.width} × ${canvas.height}.`,
      );
    return canvas;
  }
  const frames = rest.filter((c) => c.type === "ANMF");
  if (frames.length === 0) corrupt("The animated WebP has no frame (ANMF chunk).");
  const anim = rest.findIndex((c) => c.type === "ANIM");
  if (anim < 0 || rest[anim].size < 6 || rest.indexOf(frames[0]) < anim)
    corrupt("The animated WebP has no ANIM chunk before its frames.");
  for (const frame of frames) {
    // Offset x / 2, y / 2, width - 1, height - 1 (24 bits each), duration (24 bits), flags; then the frame's chunks.
    if (frame.size < 16) corrupt("The WebP has an ANMF chunk that is too short.");
    const x = r.u24le(frame.at) * 2;
    const y = r.u24le(frame.at + 3) * 2;
    const width = r.u24le(frame.at + 6) + 1;
    const height = r.u24le(frame.at + 9) + 1;
    if (x + width > canvas.width || y + height > canvas.height)
      corrupt("The WebP has an animation frame outside its canvas.");
    const image = riffChunks(r, frame.at + 16, frame.at + frame.size).find(isBitstream);
    if (image === undefined) corrupt("The WebP has an animation frame without image data (a VP8 or VP8L chunk).");
    const size = webpBitstreamSize(r, image);
    if (size.width !== width || size.height !== height)
      corrupt("The WebP has an animation frame whose image is not the frame's size.");
  }
  return canvas;
}

const SIZE_READERS: Record<ImageType, (bytes: Uint8Array) => Size> = {
  "image/png": pngSize,
  "image/jpeg": jpegSize,
  "image/gif": gifSize,
  "image/webp": webpSize,
};

/**
 * Checks the structure of an image of a known type (see each format's reader: enough that a viewer opens it, without
 * decoding the pixels) and reads its width and height; throws ImageHeaderError. Does not apply MAX_IMAGE_SIDE.
 */
export function imageSize(bytes: Uint8Array, type: ImageType): Size {
  const size = SIZE_READERS[type](bytes);
  if (size.width < 1 || size.height < 1) corrupt("The image header gives a width or height of zero.");
  return size;
}

/**
 * Recognises an image by its bytes, checks its structure and reads its dimensions, which must be at most
 * MAX_IMAGE_SIDE a side; never throws.
 */
export function inspectImage(bytes: Uint8Array): Inspection {
  const type = sniffImageType(bytes);
  if (type === null)
    return { ok: false, reason: "unsupported", message: "The file is not a PNG, JPEG, GIF or WebP image." };
  try {
    const { width, height } = imageSize(bytes, type);
    if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE)
      corrupt(`The image is ${width} × ${height} pixels; at most ${MAX_IMAGE_SIDE} pixels a side are accepted.`);
    return { ok: true, type, width, height };
  } catch (err) {
    if (err instanceof ImageHeaderError) return { ok: false, reason: "corrupt", type, message: err.message };
    throw err;
  }
}

/** Base64 of the standard or URL-safe alphabet, without whitespace. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** An upload as it arrives: a file part's bytes, or data_base64's text. */
export type UploadData = { bytes: Uint8Array } | { base64: string };

/** What reading an upload found: the image with its bytes and their SHA-256, or why it is refused. */
export type Upload =
  | { ok: true; type: ImageType; width: number; height: number; bytes: Uint8Array; sha256: string }
  | { ok: false; reason: "too_large"; size: number }
  | { ok: false; reason: "unsupported" | "invalid"; message: string };

/**
 * Decodes, checks and hashes an upload: base64 (standard or URL-safe alphabet; whitespace and a data: URL prefix
 * are ignored) is held to MAX_IMAGE_BYTES before it is decoded; then the size, the type (by magic number), the
 * file's structure and its dimensions (inspectImage). A worker pool task: for a 10 MiB image this work held the HTTP
 * thread 30-90 ms.
 */
export function readUpload(data: UploadData): Upload {
  let bytes: Uint8Array;
  if ("base64" in data) {
    const text = data.base64.replace(/^data:[^,]*;base64,/i, "");
    // Most base64 comes without line breaks: the check tells at once, and a copy without whitespace is made only when
    // it fails (10 ms for 10 MiB).
    const plain = BASE64.test(text);
    const compact = plain ? text : text.replace(/\s+/g, "");
    // Trailing padding counted from the end: /=+$/ retried from every "=" of a long run (quadratic: 4 s for 100,000).
    let digits = compact.length;
    while (digits > 0 && compact.charCodeAt(digits - 1) === 61) digits--;
    // Refuse an oversize image before decoding it.
    const size = Math.floor((digits * 3) / 4);
    if (size > MAX_IMAGE_BYTES) return { ok: false, reason: "too_large", size };
    if (!(plain || BASE64.test(compact)) || digits % 4 === 1)
      return { ok: false, reason: "invalid", message: "Not valid base64." };
    bytes = Buffer.from(compact, "base64");
  } else bytes = data.bytes;
  if (bytes.byteLength > MAX_IMAGE_BYTES) return { ok: false, reason: "too_large", size: bytes.byteLength };
  if (bytes.byteLength === 0) return { ok: false, reason: "invalid", message: "The file is empty." };
  const found = inspectImage(bytes);
  if (!found.ok)
    return { ok: false, reason: found.reason === "unsupported" ? "unsupported" : "invalid", message: found.message };
  return { ...found, bytes, sha256: sha256Hex(bytes) };
}

/** The usual file extension of an image type. */
export function extensionOf(type: ImageType): string {
  return { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp" }[type];
}

/** The lowercase hexadecimal SHA-256 of some bytes (the ETag of an image's content). */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/* ---------------------------------------------------------------------------------------------------------------
 * PNG encoding
 * ------------------------------------------------------------------------------------------------------------- */

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "latin1");
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * Encodes 8-bit RGB scanlines as a PNG. `scanlines` holds `height` rows of one filter-type byte (left 0) followed by
 * `width * 3` bytes; the rows are filtered in place (Sub, which suits smooth gradients) before deflating.
 */
export function encodeRgbPng(width: number, height: number, scanlines: Uint8Array): Buffer {
  const stride = width * 3 + 1;
  if (scanlines.length !== stride * height) throw new RangeError("scanlines do not match width and height");
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    scanlines[row] = 1;
    // Right to left, so that each byte's left neighbour is still unfiltered when it is read.
    for (let i = row + stride - 1; i > row + 3; i--) scanlines[i] = (scanlines[i] - scanlines[i - 3]) & 0xff;
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  return Buffer.concat([
    Buffer.from(PNG_SIGNATURE),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(scanlines, { level: 6 })),
    chunk("IEND", new Uint8Array(0)),
  ]);
}

/* ---------------------------------------------------------------------------------------------------------------
 * The builtin image engine
 * ------------------------------------------------------------------------------------------------------------- */

/** What the builtin engine renders from. */
export interface RenderRequest {
  prompt: string;
  width: number;
  height: number;
  seed: number;
}

/** Limits and defaults of generated images. */
export const RENDER_LIMITS = { minSide: 64, maxSide: 2048, defaultSide: 1024, maxPromptChars: 1000 } as const;

type Rgb = [number, number, number];

/** sfc32: a small, fast PRNG whose whole state comes from the prompt's hash. */
function prng(seedBytes: Buffer): () => number {
  let a = seedBytes.readUInt32LE(0);
  let b = seedBytes.readUInt32LE(4);
  let c = seedBytes.readUInt32LE(8);
  let d = seedBytes.readUInt32LE(12);
  const next = () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

function hsl(h: number, s: number, l: number): Rgb {
  const hue = (((h % 360) + 360) % 360) / 360;
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const channel = (t: number) => {
    const x = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    if (x < 1 / 6) return p + (q - p) * 6 * x;
    if (x < 1 / 2) return q;
    if (x < 2 / 3) return p + (q - p) * (2 / 3 - x) * 6;
    return p;
  };
  return [channel(hue + 1 / 3) * 255, channel(hue) * 255, channel(hue - 1 / 3) * 255];
}

// Words of a prompt that pull the palette towards a colour: [hue, saturation, lightness].
const COLOUR_WORDS: Record<string, [number, number, number]> = {
  red: [0, 0.75, 0.5],
  crimson: [348, 0.8, 0.42],
  scarlet: [5, 0.85, 0.48],
  coral: [12, 0.8, 0.62],
  orange: [28, 0.9, 0.55],
  amber: [40, 0.95, 0.5],
  gold: [45, 0.85, 0.52],
  golden: [45, 0.85, 0.52],
  yellow: [55, 0.9, 0.58],
  lime: [90, 0.7, 0.5],
  green: [125, 0.55, 0.42],
  emerald: [145, 0.65, 0.4],
  mint: [155, 0.5, 0.72],
  teal: [178, 0.6, 0.38],
  turquoise: [174, 0.65, 0.52],
  cyan: [186, 0.75, 0.5],
  blue: [218, 0.7, 0.5],
  navy: [225, 0.6, 0.24],
  indigo: [250, 0.55, 0.38],
  violet: [272, 0.55, 0.55],
  purple: [282, 0.5, 0.45],
  lavender: [265, 0.5, 0.78],
  magenta: [305, 0.75, 0.52],
  pink: [335, 0.75, 0.72],
  rose: [345, 0.65, 0.6],
  brown: [25, 0.45, 0.32],
  black: [230, 0.15, 0.08],
  white: [40, 0.25, 0.95],
  gray: [220, 0.08, 0.55],
  grey: [220, 0.08, 0.55],
  sunset: [18, 0.85, 0.55],
  sunrise: [35, 0.85, 0.62],
  fire: [10, 0.9, 0.5],
  ocean: [200, 0.7, 0.42],
  sea: [195, 0.6, 0.45],
  sky: [205, 0.7, 0.66],
  forest: [135, 0.5, 0.3],
  night: [235, 0.5, 0.16],
  ice: [195, 0.55, 0.85],
  snow: [210, 0.2, 0.93],
  desert: [38, 0.55, 0.66],
  sand: [40, 0.5, 0.72],
};

/** The palette: colours named in the prompt first, then a harmony around the first hue. */
function palette(prompt: string, random: () => number): Rgb[] {
  const named = (prompt.toLowerCase().match(/\p{L}+/gu) ?? [])
    .map((w) => COLOUR_WORDS[w])
    .filter((c): c is [number, number, number] => c !== undefined)
    .slice(0, 3);
  const base = named[0]?.[0] ?? random() * 360;
  const harmony = [
    [0, 30, -30, 60],
    [0, 180, 30, 210],
    [0, 120, 240, 60],
    [0, 150, 210, 30],
  ][Math.floor(random() * 4)];
  const colours: Rgb[] = named.map(([h, s, l]) => hsl(h, s, l));
  for (let i = 0; colours.length < 5; i++) {
    const h = base + harmony[i % 4] + (random() - 0.5) * 16;
    colours.push(hsl(h, 0.45 + random() * 0.4, 0.3 + random() * 0.45));
  }
  return colours;
}

/** Blends a colour over one pixel with coverage `a` (0–1). */
function blend(px: Uint8Array, i: number, c: Rgb, a: number): void {
  px[i] += (c[0] - px[i]) * a;
  px[i + 1] += (c[1] - px[i + 1]) * a;
  px[i + 2] += (c[2] - px[i + 2]) * a;
}

/**
 * Renders the builtin engine's picture for a prompt: a gradient ground and a composition of discs, rings, bars and
 * glows whose colours (named colours in the prompt lead), layout and sizes come from a hash of the prompt and seed.
 * The same request always gives the same bytes; the layout is proportional, so other sizes show the same picture.
 */
export function renderPng(req: RenderRequest): Buffer {
  const { width: w, height: h } = req;
  const digest = createHash("sha256").update(`builtin-image-v1\0${req.seed}\0${req.prompt}`).digest();
  const random = prng(digest);
  const colours = palette(req.prompt, random);
  const stride = w * 3 + 1;
  const raw = new Uint8Array(stride * h);
  // A view whose stores round and clamp, for blending.
  const px = new Uint8ClampedArray(raw.buffer) as unknown as Uint8Array;

  // Ground: a linear gradient between the two darkest-and-lightest pair of the first colours, at a random angle.
  const angle = random() * Math.PI * 2;
  const dx = Math.cos(angle);
  const dy = Math.sin(angle);
  const reach = Math.abs(dx) * w + Math.abs(dy) * h;
  const [g0, g1] = [colours[0], colours[1]].map((c, k) => c.map((v) => v * (k === 0 ? 0.55 : 1.1))) as Rgb[];
  for (let y = 0; y < h; y++) {
    const row = y * stride + 1;
    for (let x = 0; x < w; x++) {
      let t = ((x - w / 2) * dx + (y - h / 2) * dy) / reach + 0.5;
      t = t * t * (3 - 2 * t);
      const i = row + x * 3;
      px[i] = g0[0] + (g1[0] - g0[0]) * t;
      px[i + 1] = g0[1] + (g1[1] - g0[1]) * t;
      px[i + 2] = g0[2] + (g1[2] - g0[2]) * t;
    }
  }

  const side = Math.min(w, h);
  const shapes = 4 + Math.floor(random() * 5);
  for (let s = 0; s < shapes; s++) {
    const kind = random();
    const colour = colours[1 + Math.floor(random() * (colours.length - 1))];
    const alpha = 0.35 + random() * 0.5;
    const cx = random() * w;
    const cy = random() * h;
    const r = side * (0.08 + random() * 0.27);
    // Coverage by signed distance d (negative inside): a one-pixel antialiased edge, or a wide soft glow.
    const feather = kind < 0.2 ? r * 0.9 : 1;
    let reachOut = r + feather;
    let distance: (x: number, y: number) => number;
    if (kind < 0.55) {
      distance = (x, y) => Math.sqrt((x - cx) ** 2 + (y - cy) ** 2) - r;
    } else if (kind < 0.75) {
      const band = r * (0.12 + random() * 0.2);
      distance = (x, y) => Math.abs(Math.sqrt((x - cx) ** 2 + (y - cy) ** 2) - r) - band;
      reachOut = r + band + feather;
    } else {
      const theta = random() * Math.PI;
      const cos = Math.cos(theta);
      const sin = Math.sin(theta);
      const hw = r * (0.6 + random() * 1.4);
      const hh = r * (0.15 + random() * 0.5);
      distance = (x, y) => {
        const u = Math.abs((x - cx) * cos + (y - cy) * sin) - hw;
        const v = Math.abs(-(x - cx) * sin + (y - cy) * cos) - hh;
        return u > 0 && v > 0 ? Math.sqrt(u * u + v * v) : Math.max(u, v);
      };
      reachOut = Math.hypot(hw, hh) + feather;
    }
    const x0 = Math.max(0, Math.floor(cx - reachOut));
    const x1 = Math.min(w - 1, Math.ceil(cx + reachOut));
    const y0 = Math.max(0, Math.floor(cy - reachOut));
    const y1 = Math.min(h - 1, Math.ceil(cy + reachOut));
    for (let y = y0; y <= y1; y++) {
      const row = y * stride + 1;
      for (let x = x0; x <= x1; x++) {
        const d = distance(x + 0.5, y + 0.5);
        if (d >= feather / 2) continue;
        let cover = d <= -feather / 2 ? 1 : 0.5 - d / feather;
        if (feather > 1) cover = cover * cover * (3 - 2 * cover);
        blend(px, row + x * 3, colour, cover * alpha);
      }
    }
  }
  return encodeRgbPng(w, h, raw);
}
