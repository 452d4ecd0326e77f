/**
 * A JPEG scan header (SOS) as libjpeg-turbo reads it (jdmarker.c get_sos) and the checks it makes when the scan
 * starts: the frame's setup at the first scan, the MCU's size, the tables the scan uses, its parameters.
 */
import { componentName, type JpegComponent, type JpegScanParameters, type JpegState } from "./jpeg-frame.js";
import { checkScanHuffmanTables, latchQuantTables } from "./jpeg-tables.js";
import { corrupt, type Reader } from "./reader.js";

/** The most components a scan may hold (libjpeg-turbo's MAX_COMPS_IN_SCAN). */
const JPEG_MAX_COMPS_IN_SCAN = 4;
/** The most blocks (data units) an interleaved scan's MCU may hold (libjpeg-turbo's D_MAX_BLOCKS_IN_MCU). */
const JPEG_MAX_BLOCKS_IN_MCU = 10;

/**
 * Reads a scan header of `length` bytes at `at` and checks the scan in libjpeg-turbo's order: its length and
 * components (scanComponents), the frame at the first scan (checkFrameAtFirstScan), the MCU's blocks, the
 * quantization tables it latches, its progression, its Huffman tables, and a lossless scan's parameters and
 * restart interval. Counts the scan in `state`.
 */
export function readScanHeader(r: Reader, state: JpegState, at: number, length: number): void {
  const bytes = r.bytes;
  const components = length >= 3 ? r.u8(at + 2) : 0;
  // libjpeg-turbo's MAX_COMPS_IN_SCAN (jdmarker.c get_sos, which reports it as a bad length).
  if (components > JPEG_MAX_COMPS_IN_SCAN)
    corrupt(
      `The JPEG's scan header (SOS) names ${components} components; a scan holds at most ${JPEG_MAX_COMPS_IN_SCAN}.`,
    );
  if (components < 1 || length !== 6 + 2 * components) corrupt("The JPEG has a malformed scan header (SOS).");
  const ids = Array.from({ length: components }, (_, c) => r.u8(at + 3 + 2 * c));
  const inScan = scanComponents(state.components, ids);
  // When the first scan header has been read, libjpeg-turbo sets the frame up (jdinput.c initial_setup).
  if (state.scans === 0) checkFrameAtFirstScan(state);
  checkMcuBlocks(state.components, inScan);
  latchQuantTables(state, inScan);
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
  if (state.progressive) checkProgression(scan);
  checkScanHuffmanTables(bytes, state, at, inScan, scan);
  // Checked after the Huffman tables, when the lossless decoder's input pass starts (jddiffct.c start_input_pass
  // calls jdlossls.c start_pass_lossless).
  if (state.lossless) {
    checkLosslessScan(scan, state.precision);
    checkLosslessRestart(state.restartInterval, state.size!.width, state.components, inScan);
  }
  state.scans++;
}

/**
 * Checks the frame as libjpeg-turbo sets it up once the first scan header is read (jdinput.c initial_setup): its
 * sample precision (checkPrecision), then each component's sampling factors, 1 to 4 (JERR_BAD_SAMPLING:
 * MAX_SAMP_FACTOR), then that it is not lossless and arithmetic-coded (SOF11): jdmaster.c master_selection refuses
 * that (JERR_ARITH_NOTIMPL) in every build, as libjpeg-turbo has no lossless arithmetic decoder.
 */
function checkFrameAtFirstScan(state: JpegState): void {
  const frame = state.components;
  checkPrecision(state.precision, state.lossless);
  frame.forEach(({ h, v }, c) => {
    if (h < 1 || h > 4 || v < 1 || v > 4)
      corrupt(`The JPEG's component ${componentName(frame, c)} has sampling factors ${h} × ${v}; each is 1 to 4.`);
  });
  if (state.lossless && state.coding === "arithmetic")
    corrupt("The file is a lossless arithmetic-coded JPEG (SOF11), which browsers do not decode.");
}

/**
 * Refuses an interleaved scan whose MCU holds more than JPEG_MAX_BLOCKS_IN_MCU blocks (data units), H × V of each of
 * its components, as jdinput.c per_scan_setup counts them when the scan starts, before anything else
 * (JERR_BAD_MCU_SIZE). A scan of one component has one block to an MCU.
 */
function checkMcuBlocks(frame: JpegComponent[], inScan: number[]): void {
  if (inScan.length <= 1) return;
  const blocks = inScan.reduce((sum, c) => sum + frame[c].h * frame[c].v, 0);
  if (blocks > JPEG_MAX_BLOCKS_IN_MCU)
    corrupt(
      `The JPEG's scan of ${inScan.length} components has ${blocks} blocks in an MCU; at most ${JPEG_MAX_BLOCKS_IN_MCU} are decoded.`,
    );
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
