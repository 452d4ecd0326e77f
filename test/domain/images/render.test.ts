/** renderPng: the builtin image engine (src/domain/images/render.ts). */
import { describe, expect, it } from "vitest";
import { renderPng } from "../../../src/domain/images/render.js";
import { readPng, unfilterRgb } from "../../helpers/images.js";

describe("renderPng: the builtin image engine", () => {
  const meanRgb = (bytes: Uint8Array) => {
    const file = readPng(bytes);
    const px = unfilterRgb(file.scanlines, file.width, file.height);
    const sum = [0, 0, 0];
    for (let i = 0; i < px.length; i++) sum[i % 3] += px[i];
    return sum.map((s) => s / (px.length / 3));
  };

  it("is deterministic: the same prompt, size and seed give byte-identical PNGs", () => {
    const req = { prompt: "A lighthouse on a cliff at dawn", width: 256, height: 192, seed: 42 };
    expect(Buffer.compare(renderPng(req), renderPng({ ...req }))).toBe(0);
  });

  it("changes with the prompt, the seed and the size", () => {
    const base = { prompt: "A lighthouse on a cliff at dawn", width: 128, height: 128, seed: 0 };
    const a = renderPng(base);
    expect(Buffer.compare(a, renderPng({ ...base, prompt: "A lighthouse on a cliff at dusk" }))).not.toBe(0);
    expect(Buffer.compare(a, renderPng({ ...base, seed: 1 }))).not.toBe(0);
    expect(Buffer.compare(a, renderPng({ ...base, width: 129 }))).not.toBe(0);
  });

  it.each([
    [64, 64],
    [64, 2048],
    [333, 97],
  ])("renders a valid %i × %i PNG: every CRC right, IHDR as requested, scanlines complete", (width, height) => {
    const file = readPng(renderPng({ prompt: "sizes", width, height, seed: 7 }));
    expect(file.chunks[0].type).toBe("IHDR");
    expect(file.chunks.at(-1)?.type).toBe("IEND");
    expect(file.chunks.every((c) => c.crcOk)).toBe(true);
    expect([file.width, file.height, file.bitDepth, file.colourType]).toEqual([width, height, 8, 2]);
    expect(file.scanlines.length).toBe((width * 3 + 1) * height);
    expect(() => unfilterRgb(file.scanlines, width, height)).not.toThrow();
  });

  it("draws something: the picture is not one flat colour", () => {
    const file = readPng(renderPng({ prompt: "anything at all", width: 96, height: 96, seed: 3 }));
    const px = unfilterRgb(file.scanlines, 96, 96);
    const colours = new Set<number>();
    for (let i = 0; i < px.length; i += 3) colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
    expect(colours.size).toBeGreaterThan(50);
  });

  it("takes the colours the prompt names", () => {
    const red = meanRgb(renderPng({ prompt: "red red red", width: 96, height: 96, seed: 0 }));
    const blue = meanRgb(renderPng({ prompt: "blue blue blue", width: 96, height: 96, seed: 0 }));
    expect(red[0] - red[2]).toBeGreaterThan(blue[0] - blue[2]);
  });

  it("renders 1024 × 1024 well within a second", () => {
    const started = performance.now();
    renderPng({ prompt: "speed", width: 1024, height: 1024, seed: 0 });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
