/**
 * What a JPEG's marker segments have defined when a scan starts, as libjpeg-turbo holds it: the frame header (size,
 * coding, sample precision, components) and the quantization and Huffman tables defined so far.
 */
import { corrupt, type Reader, type Size } from "./reader.js";

// The lossless frames (T.81 H.1), which use no quantization table; libjpeg-turbo reads SOF11's header but refuses to
// decode it (see checkFrameAtFirstScan in jpeg-scan.ts).
const JPEG_LOSSLESS = new Set([0xc3, 0xcb]);
// The progressive frames, Huffman- (SOF2) or arithmetic-coded (SOF10), whose scans are checked by progression.
const JPEG_PROGRESSIVE = new Set([0xc2, 0xca]);
/** The most components a frame may have (libjpeg-turbo's MAX_COMPONENTS). */
const JPEG_MAX_COMPONENTS = 10;

/**
 * How a frame's scans are entropy-coded, which decides the Huffman tables a scan uses: sequential (SOF0, 1) the DC
 * and AC tables of each of its components, progressive (SOF2) the DC table in a first DC scan, none in a DC
 * refinement, the AC table in an AC scan, lossless (SOF3) the DC table; arithmetic coding (SOF9 and up) none.
 */
export type JpegCoding = "sequential" | "progressive" | "lossless" | "arithmetic";

function jpegCoding(sof: number): JpegCoding {
  if (sof >= 0xc9) return "arithmetic";
  if (sof === 0xc2) return "progressive";
  if (sof === 0xc3) return "lossless";
  return "sequential";
}

/** A JPEG frame header's component, by its place in the header. */
export interface JpegComponent {
  id: number;
  /** The quantization table slot it uses (Tq). */
  slot: number;
  /** Its horizontal and vertical sampling factors (H, V). */
  h: number;
  v: number;
  /** Whether a scan has held it: its table was checked then, and a later DQT no longer matters to it. */
  latched: boolean;
}

/** A Huffman table as a DHT defined it, reduced to what libjpeg-turbo checks when a scan uses it. */
export interface JpegHuffmanTable {
  /** Whether its code counts give more codes of some length than fit, counting the all-ones code as not fitting. */
  overfull: boolean;
  /** Its largest symbol (0 for a table of none). */
  maxSymbol: number;
}

/** A scan header's parameters: spectral selection Ss–Se, successive approximation Ah/Al, its number of components. */
export interface JpegScanParameters {
  ss: number;
  se: number;
  ah: number;
  al: number;
  components: number;
}

/** What the marker segments read so far have defined, which the next segment is checked against. */
export interface JpegState {
  /** The frame header's size, or null before the frame header. */
  size: Size | null;
  /** The scans read so far. */
  scans: number;
  /** The quantization table slots a DQT has defined so far (bits 0–3). */
  quantDefined: number;
  /** The frame's components, by their place in its header. */
  components: JpegComponent[];
  lossless: boolean;
  progressive: boolean;
  /** The frame's sample precision (P), in bits. */
  precision: number;
  coding: JpegCoding;
  /** The Huffman tables the DHTs so far defined, as libjpeg-turbo will check them: 0–3 the DC slots, 4–7 the AC ones. */
  huffman: (JpegHuffmanTable | null)[];
  /** The restart interval the last DRI set, in MCUs (0: none). */
  restartInterval: number;
}

/** The state before any segment after SOI: no frame, no tables, no restart interval. */
export function newJpegState(): JpegState {
  return {
    size: null,
    scans: 0,
    quantDefined: 0,
    components: [],
    lossless: false,
    progressive: false,
    precision: 0,
    coding: "sequential",
    huffman: new Array(8).fill(null),
    restartInterval: 0,
  };
}

/**
 * Reads a frame header (SOFn) of `length` bytes at `at`: only one a file, its length fitting its component count, at
 * most JPEG_MAX_COMPONENTS components (jdinput.c initial_setup: JERR_COMPONENT_COUNT).
 */
export function readFrameHeader(r: Reader, state: JpegState, marker: number, at: number, length: number): void {
  if (state.size !== null) corrupt("The JPEG has more than one frame header (SOFn).");
  if (length < 8) corrupt("The JPEG's frame header is too short.");
  const components = r.u8(at + 7);
  if (components === 0 || length !== 8 + 3 * components)
    corrupt("The JPEG's frame header does not match its number of components.");
  if (components > JPEG_MAX_COMPONENTS)
    corrupt(`The JPEG's frame header has ${components} components; at most ${JPEG_MAX_COMPONENTS} are decoded.`);
  state.size = { height: r.u16be(at + 3), width: r.u16be(at + 5) };
  state.lossless = JPEG_LOSSLESS.has(marker);
  state.progressive = JPEG_PROGRESSIVE.has(marker);
  state.precision = r.u8(at + 2);
  state.coding = jpegCoding(marker);
  state.components = Array.from({ length: components }, (_, c) => ({
    id: r.u8(at + 8 + 3 * c),
    slot: r.u8(at + 10 + 3 * c),
    h: r.u8(at + 9 + 3 * c) >> 4,
    v: r.u8(at + 9 + 3 * c) & 0x0f,
    latched: false,
  }));
}

/** A frame component as a message names it: its ID, and its place when another component has the same ID. */
export function componentName(frame: JpegComponent[], c: number): string {
  const id = frame[c].id;
  return frame.filter((other) => other.id === id).length > 1 ? `${id} (number ${c + 1} in the frame header)` : `${id}`;
}
