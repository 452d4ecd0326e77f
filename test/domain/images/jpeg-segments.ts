/** Builders of JPEG marker segments and files for the JPEG tests (test/domain/images/jpeg*.test.ts). */

/** A marker segment: the marker, its length (payload and the length's own two bytes) and its payload. */
export const seg = (marker: number, payload: number[]) => [
  0xff,
  marker,
  (payload.length + 2) >> 8,
  (payload.length + 2) & 0xff,
  ...payload,
];
/** A DQT of these table slots (the high nibble: 16-bit values), each of 64 values. */
export const dqt = (...tables: number[]) =>
  seg(
    0xdb,
    tables.flatMap((t) => [t, ...new Array(t >> 4 ? 128 : 64).fill(1)]),
  );
/** A 16 × 16 frame of this sample precision whose component ids[i] (default i + 1) uses quantization slot tqs[i]. */
export const frame = (tqs: number[], marker = 0xc0, ids = tqs.map((_, i) => i + 1), precision = 8) =>
  seg(marker, [precision, 0, 16, 0, 16, tqs.length, ...tqs.flatMap((tq, i) => [ids[i], 0x11, tq])]);
/** A DQT segment of exactly these bytes (tables cut short, leftover bytes). */
export const rawDqt = (...payload: number[]) => seg(0xdb, payload);
/** A quantization table's bytes: its precision/slot byte and `values` 8-bit values. */
export const table8 = (slot: number, values = 64) => [slot, ...new Array(values).fill(1)];
/** A scan of these component identifiers, then two bytes of coded data. */
export const scan = (...ids: number[]) => [
  ...seg(0xda, [ids.length, ...ids.flatMap((id) => [id, 0]), 0, 63, 0]),
  0x12,
  0x34,
];
/** A progressive DC first scan (Ss = Se = 0) of these component identifiers, each with DC table 0. */
export const dcScan = (...ids: number[]) => [
  ...seg(0xda, [ids.length, ...ids.flatMap((id) => [id, 0]), 0, 0, 0]),
  0x12,
  0x34,
];
/** A JPEG file: SOI, these segments and data, EOI. */
export const jpegOf = (...parts: number[][]) => Uint8Array.from([0xff, 0xd8, ...parts.flat(), 0xff, 0xd9]);
/** A DHT of these class/slot bytes (0x1n: AC table n), each a table of one 1-bit code. */
export const dht = (...indexes: number[]) =>
  seg(
    0xc4,
    indexes.flatMap((index) => [index, 1, ...new Array(15).fill(0), 0]),
  );
/** A DHT of one table: its class/slot byte, its code counts by length (1 to 16 bits) and its symbols. */
export const huffTable = (index: number, counts: number[], symbols: number[]) =>
  seg(0xc4, [index, ...counts, ...new Array(16 - counts.length).fill(0), ...symbols]);
/** One code of each length from 1 to 16 bits: every code but the all-ones one, which no code may be. */
export const fullCounts = new Array(16).fill(1);
/** The symbols first, first + 1, … of a Huffman table of n values. */
export const symbols = (n: number, first = 0) => Array.from({ length: n }, (_, i) => first + i);
/**
 * A scan of components 1, 2, … whose DC/AC Huffman table bytes are `tables` (0xDA: DC table D, AC table A), with
 * spectral selection Ss–Se and successive approximation Ah/Al (default a whole sequential scan).
 */
export const huffScan = (tables: number[], ss = 0, se = 63, ahAl = 0) => [
  ...seg(0xda, [tables.length, ...tables.flatMap((t, i) => [i + 1, t]), ss, se, ahAl]),
  0x12,
  0x34,
];
/** A 16 × 16 frame whose component i + 1 has the sampling byte samplings[i] (H << 4 | V) and uses table 0. */
export const sampledFrame = (samplings: number[], marker = 0xc0, precision = 8) =>
  seg(marker, [precision, 0, 16, 0, 16, samplings.length, ...samplings.flatMap((hv, i) => [i + 1, hv, 0])]);
