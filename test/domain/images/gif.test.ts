/** GIF: the block structure and the size a viewer shows (src/domain/images/gif.ts). */
import { describe, expect, it } from "vitest";
import { inspectImage } from "../../../src/domain/images/inspect.js";
import { gif } from "../../helpers/images.js";
import { ascii, mutate, splice } from "./fixtures.js";

describe("the structure behind the header is checked, as far as a viewer needs it to open the file: GIF", () => {
  const gif1 = gif(5, 7);

  it.each([
    {
      name: "GIF with a comment extension before its image",
      bytes: splice(gif1, 19, [0x21, 0xfe, 3, ...ascii("abc"), 0]),
    },
  ])("accepts $name", ({ bytes }) => {
    expect(inspectImage(bytes)).toMatchObject({ ok: true });
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
  ])("refuses $name as corrupt, saying what is wrong", ({ bytes, message }) => {
    const result = inspectImage(bytes);
    expect(result).toMatchObject({ ok: false, reason: "corrupt", message: expect.stringMatching(message) });
  });
});
