/** WebP: the RIFF container and its chunks (src/domain/images/webp.ts). */
import { describe, expect, it } from "vitest";
import { inspectImage } from "../../../src/domain/images/inspect.js";
import { riff, riffChunk, vp8l, webp } from "../../helpers/images.js";
import { mutate } from "./fixtures.js";

describe("the structure behind the header is checked, as far as a viewer needs it to open the file: WebP", () => {
  it.each([
    { name: "WebP with bytes after its RIFF container", bytes: Uint8Array.from([...webp(3, 3, "lossless"), 9, 9]) },
  ])("accepts $name", ({ bytes }) => {
    expect(inspectImage(bytes)).toMatchObject({ ok: true });
  });

  it.each([
    // WebP
    {
      name: "extended WebP with no image chunk",
      bytes: riff(riffChunk("VP8X", [0, 0, 0, 0, 9, 0, 0, 9, 0, 0])),
      message: /no image data/,
    },
    {
      name: "extended WebP whose image is not its canvas's size",
      bytes: riff(riffChunk("VP8X", [0, 0, 0, 0, 9, 0, 0, 9, 0, 0]), vp8l(10, 11)),
      message: /image is 10 × 11 but its canvas \(VP8X\) is 10 × 10/,
    },
    {
      name: "WebP VP8 whose first partition is longer than its chunk",
      bytes: mutate(webp(10, 10, "lossy"), 21, 0x02),
      message: /frame tag is invalid/,
    },
    {
      name: "WebP VP8 frame that is not shown",
      bytes: mutate(webp(10, 10, "lossy"), 20, 0x20),
      message: /frame tag is invalid/,
    },
    {
      name: "WebP VP8L of an unknown version",
      bytes: mutate(webp(10, 10, "lossless"), 24, 0x20),
      message: /unknown version/,
    },
    {
      name: "WebP whose chunk runs past the RIFF container",
      bytes: mutate(webp(10, 10, "lossless"), 16, 0x40),
      message: /runs past the end/,
    },
    {
      name: "animated WebP without ANIM",
      bytes: riff(
        riffChunk("VP8X", [2, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        riffChunk("ANMF", [...new Array(15).fill(0), 0, ...vp8l(1, 1)]),
      ),
      message: /no ANIM chunk/,
    },
    {
      name: "animated WebP without frames",
      bytes: riff(riffChunk("VP8X", [2, 0, 0, 0, 0, 0, 0, 0, 0, 0]), riffChunk("ANIM", [0, 0, 0, 0, 0, 0])),
      message: /no frame/,
    },
    {
      name: "animated WebP with a frame outside its canvas",
      bytes: mutate(webp(2, 2, "animated"), 12 + 18 + 14 + 8, 1),
      message: /outside its canvas/,
    },
  ])("refuses $name as corrupt, saying what is wrong", ({ bytes, message }) => {
    const result = inspectImage(bytes);
    expect(result).toMatchObject({ ok: false, reason: "corrupt", message: expect.stringMatching(message) });
  });
});
