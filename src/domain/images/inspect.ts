/**
 * Inspecting a file: its type by magic number, its structure by that format's reader, its dimensions within
 * MAX_IMAGE_SIDE.
 */
import { type ImageType, MAX_IMAGE_SIDE } from "./formats.js";
import { gifSize } from "./gif.js";
import { jpegSize } from "./jpeg.js";
import { pngSize } from "./png.js";
import { corrupt, ImageHeaderError, type Size } from "./reader.js";
import { sniffImageType } from "./sniff.js";
import { webpSize } from "./webp.js";

/** What inspecting a file's bytes found: a known image with its size, or why it is refused. */
export type Inspection =
  | { ok: true; type: ImageType; width: number; height: number }
  | { ok: false; reason: "unsupported"; message: string }
  | { ok: false; reason: "corrupt"; type: ImageType | null; message: string };

const SIZE_READERS: Record<ImageType, (bytes: Uint8Array) => Size> = {
  "image/png": pngSize,
  "image/jpeg": jpegSize,
  "image/gif": gifSize,
  "image/webp": webpSize,
};

/**
 * Checks the structure of an image of a known type (see each format's reader: enough that a viewer opens it, without
 * decoding the pixels) and reads its width and height; throws ImageHeaderError. Does not apply MAX_IMAGE_SIDE.
 */
export function imageSize(bytes: Uint8Array, type: ImageType): Size {
  const size = SIZE_READERS[type](bytes);
  if (size.width < 1 || size.height < 1) corrupt("The image header gives a width or height of zero.");
  return size;
}

/**
 * Recognises an image by its bytes, checks its structure and reads its dimensions, which must be at most
 * MAX_IMAGE_SIDE a side; never throws.
 */
export function inspectImage(bytes: Uint8Array): Inspection {
  const type = sniffImageType(bytes);
  if (type === null)
    return { ok: false, reason: "unsupported", message: "The file is not a PNG, JPEG, GIF or WebP image." };
  try {
    const { width, height } = imageSize(bytes, type);
    if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE)
      corrupt(`The image is ${width} × ${height} pixels; at most ${MAX_IMAGE_SIDE} pixels a side are accepted.`);
    return { ok: true, type, width, height };
  } catch (err) {
    if (err instanceof ImageHeaderError) return { ok: false, reason: "corrupt", type, message: err.message };
    throw err;
  }
}
