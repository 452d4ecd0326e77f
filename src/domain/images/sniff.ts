/** Recognising an image's type by its leading bytes alone. */
import type { ImageType } from "./formats.js";
import { PNG_SIGNATURE } from "./png.js";

function startsWith(bytes: Uint8Array, prefix: number[] | string, at = 0): boolean {
  const want = typeof prefix === "string" ? [...prefix].map((c) => c.charCodeAt(0)) : prefix;
  if (bytes.length < at + want.length) return false;
  return want.every((b, i) => bytes[at + i] === b);
}

/**
 * The image type named by the file's leading bytes (its magic number), or null. The file name and any claimed
 * Content-Type are never consulted: only this decides what a file is.
 */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  if (startsWith(bytes, PNG_SIGNATURE)) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, "GIF87a") || startsWith(bytes, "GIF89a")) return "image/gif";
  if (startsWith(bytes, "RIFF") && startsWith(bytes, "WEBP", 8)) return "image/webp";
  return null;
}
