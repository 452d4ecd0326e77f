/**
 * JPEG quantization and Huffman tables as libjpeg-turbo reads them (jdmarker.c get_dqt, get_dht) and checks them when
 * a scan starts (jdinput.c latch_quant_tables, jdhuff.c jpeg_make_d_derived_tbl).
 */
import {
  componentName,
  type JpegComponent,
  type JpegHuffmanTable,
  type JpegScanParameters,
  type JpegState,
} from "./jpeg-frame.js";
import { corrupt } from "./reader.js";

/**
 * Reads a DQT segment of `length` bytes at `at`: whole tables, as libjpeg-turbo reads them, each a precision/slot byte
 * and 64 values of 8 or (a non-zero precision) 16 bits, the slot 0–3; a leftover byte is another table's
 * precision/slot byte, and a table the segment's length cuts short is refused.
 */
export function readQuantTables(bytes: Uint8Array, state: JpegState, at: number, length: number): void {
  const end = at + length;
  for (let t = at + 2; t < end; ) {
    const slot = bytes[t] & 0x0f;
    if (slot > 3) corrupt(`The JPEG defines quantization table ${slot}; tables 0 to 3 exist.`);
    t += 1 + (bytes[t] >> 4 ? 128 : 64);
    if (t > end) corrupt(`The JPEG's quantization table ${slot} (DQT) is cut short by its segment's length.`);
    state.quantDefined |= 1 << slot;
  }
}

/**
 * Reads a DHT segment of `length` bytes at `at`: whole tables, as libjpeg-turbo's get_dht reads them, a class/slot
 * byte, 16 code counts and that many values, while more than 16 bytes are left; then the segment must be used up.
 */
export function readHuffmanTables(bytes: Uint8Array, state: JpegState, at: number, length: number): void {
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
    state.huffman[(ac ? 4 : 0) + slot] = { overfull: space >= 2 ** 16, maxSymbol };
  }
  if (t !== end) corrupt("The JPEG's Huffman table segment (DHT) ends inside a table.");
}

/**
 * Latches the quantization table of each component of a scan that no earlier scan held, as libjpeg-turbo's
 * latch_quant_tables does: its slot must be one a DQT defined before this scan ("Quantization table 0x.. was not
 * defined"; T.81 B.2.4.1). A lossless frame latches no table (jdinput.c start_input_pass).
 */
export function latchQuantTables(state: JpegState, inScan: number[]): void {
  for (const c of inScan) {
    const component = state.components[c];
    if (state.lossless || component.latched) continue;
    if (component.slot > 3 || !(state.quantDefined & (1 << component.slot)))
      corrupt(
        `The JPEG's component ${componentName(state.components, c)} uses quantization table ${component.slot}, which no DQT defines before its first scan.`,
      );
    component.latched = true;
  }
}

/**
 * Checks the Huffman tables a scan uses, each as libjpeg-turbo's entropy decoder checks it when the scan starts
 * (jdhuff.c, jdphuff.c, jdlhuff.c: jpeg_make_d_derived_tbl, "Huffman table 0x.. was not defined"); which tables a
 * scan uses follows from the frame's JpegCoding. `at` is the scan header's length field.
 */
export function checkScanHuffmanTables(
  bytes: Uint8Array,
  state: JpegState,
  at: number,
  inScan: number[],
  scan: JpegScanParameters,
): void {
  const { coding, huffman, lossless } = state;
  const dcBand = scan.ss === 0;
  const refinement = scan.ah !== 0;
  inScan.forEach((c, i) => {
    const tables = bytes[at + 4 + 2 * i];
    const dc = coding === "sequential" || coding === "lossless" || (coding === "progressive" && dcBand && !refinement);
    const ac = coding === "sequential" || (coding === "progressive" && !dcBand);
    // Only the sequential decoder has standard tables for slots 0 and 1.
    const standard = coding === "sequential";
    if (dc) checkHuffmanTable(state.components, c, "DC", tables >> 4, huffman.slice(0, 4), standard, lossless);
    if (ac) checkHuffmanTable(state.components, c, "AC", tables & 0x0f, huffman.slice(4), standard, lossless);
  });
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
