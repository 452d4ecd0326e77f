/** WebP: the RIFF container and its chunks as libwebp reads them, and the canvas's size. */
import { ascii, corrupt, Reader, type Size } from "./reader.js";

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
 * The size of a WebP, read once its structure is checked. WebP: a RIFF container no larger than the bytes sent (bytes
 * after it are ignored) whose chunks are each whole. Simple: a VP8 (lossy) or VP8L (lossless) chunk first. Extended: a
 * VP8X chunk first, whose canvas is the image's size, then a still image's VP8/VP8L chunk of the canvas's size, or an
 * animation's ANIM chunk and ANMF frames that each hold a VP8/VP8L bitstream of the frame's size and lie within the
 * canvas.
 */
export function webpSize(bytes: Uint8Array): Size {
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
