/**
 * Bytes cross to a pool's threads and back handed over, not copied (workers/tasks.ts transferable, handingOver): a
 * copy of 10 MiB cost the thread answering requests 4-8 ms each way.
 */
import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { inlinePool, piscinaPool } from "../../src/workers/pool.js";
import { transferable } from "../../src/workers/tasks.js";
import { png } from "../helpers/images.js";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("an upload's bytes on a pool's thread", () => {
  const pool = piscinaPool(1);
  afterAll(() => pool.close());

  it("go there and come back without a copy; the answer is the inline pool's", async () => {
    const bytes = png(4, 4, 1 << 20);
    const digest = sha256(bytes);
    const expected = await inlinePool().run("readUpload", { bytes: bytes.slice() });
    const got = await pool.run("readUpload", { bytes }, transferable(bytes));
    // Handed over: this thread's view of the input is empty now.
    expect(bytes.byteLength).toBe(0);
    expect(got).toEqual({ ...expected, bytes: got.ok ? got.bytes : undefined });
    expect(got.ok && sha256(got.bytes)).toBe(digest);
    expect(got.ok && got.sha256).toBe(digest);
  });

  it("are copied when they are part of a larger buffer, which stays whole", async () => {
    const small = Buffer.from(png(3, 2));
    expect(transferable(small)).toEqual([]);
    const got = await pool.run("readUpload", { bytes: small }, transferable(small));
    expect(small.byteLength).toBeGreaterThan(0);
    expect(got).toMatchObject({ ok: true, type: "image/png", width: 3, height: 2 });
  });

  it("of a refused upload answer its reason", async () => {
    expect(await pool.run("readUpload", { base64: "iVBOR***" })).toEqual({
      ok: false,
      reason: "invalid",
      message: "Not valid base64.",
    });
  });
});

describe("a rendered image on a pool's thread", () => {
  const pool = piscinaPool(1);
  afterAll(() => pool.close());

  it("comes back with its SHA-256 (the image's ETag), hashed there rather than on the thread answering requests", async () => {
    const input = { prompt: "a lighthouse at dusk", width: 640, height: 480, seed: 7 };
    const expected = await inlinePool().run("renderImage", input);
    const got = await pool.run("renderImage", input);
    expect(got.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(got.sha256).toBe(sha256(got.bytes));
    // The same picture as the inline pool's (there a Buffer; handed over, a Uint8Array on the same memory).
    expect(got.sha256).toBe(expected.sha256);
    expect(Buffer.from(got.bytes).equals(Buffer.from(expected.bytes))).toBe(true);
  });
});
