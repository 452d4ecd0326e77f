/** JPEG quantization and Huffman tables as libjpeg-turbo reads and uses them (src/domain/images/jpeg-tables.ts). */
import { describe, expect, it } from "vitest";
import { inspectImage } from "../../../src/domain/images/inspect.js";
import {
  dcScan,
  dht,
  dqt,
  frame,
  fullCounts,
  huffScan,
  huffTable,
  jpegOf,
  rawDqt,
  scan,
  seg,
  symbols,
  table8,
} from "./jpeg-segments.js";

describe("JPEG tables and components: accepted where libjpeg(-turbo) accepts them", () => {
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
});

describe("JPEG tables and components: refused exactly where libjpeg(-turbo) refuses them", () => {
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
