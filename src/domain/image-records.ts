/**
 * The rules of an image record (DESIGN §6): the name it is stored under, the refusals of bytes that are no usable
 * image, and the errors of an image not found. The bytes themselves are read by images.ts readUpload.
 */
import type { ImageRow } from "../db/images.js";
import type { Store } from "../db/store.js";
import { ApiError, invalidInput } from "./errors.js";
import { extensionOf, IMAGE_TYPES, type ImageType, MAX_IMAGE_BYTES } from "./images/formats.js";
import type { Upload } from "./images/upload.js";

/** The 413 of an image over 10 MiB, with its size when it was read (not when its body passed the ceiling). */
export function imageTooLarge(size?: number): ApiError {
  return new ApiError("payload_too_large", `The image is larger than ${MAX_IMAGE_BYTES} bytes (10 MiB).`, {
    limit_bytes: MAX_IMAGE_BYTES,
    ...(size !== undefined ? { size_bytes: size } : {}),
  });
}

/** 404 image_not_found: an image of another account is not found either. */
export function imageNotFound(id: number): ApiError {
  return new ApiError("image_not_found", `No image ${id}.`, { image_id: id });
}

/** Finds an image of the account (404 otherwise). */
export function findImage(store: Pick<Store, "images">, accountId: number, id: number): ImageRow {
  const row = store.images.find(accountId, id);
  if (!row) throw imageNotFound(id);
  return row;
}

/** The stored name of an upload: the last path segment, without control characters, or a default. */
export function uploadFilename(given: string | undefined, type: ImageType): string {
  const base = (given ?? "")
    .split(/[\\/]/)
    .pop()!
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim();
  // 255 characters (code points, as the limit on a filename field counts them): a cut by UTF-16 units would split an
  // emoji, stored as U+FFFD.
  const name = [...base].slice(0, 255).join("").trimEnd();
  return name === "" || name === "." || name === ".." ? `image.${extensionOf(type)}` : name;
}

/** A file name for a generated image, from the first words of its prompt, with the extension of its type. */
export function generatedFilename(prompt: string, type: ImageType): string {
  const slug = prompt
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .slice(0, 60)
    .replace(/^-+|-+$/g, "");
  return `${slug || "generated"}.png`.replace(/\.png$/, `.${extensionOf(type)}`);
}

/** The error of an upload that readUpload refused; `field` names where its bytes were sent. */
export function uploadRefusal(upload: Exclude<Upload, { ok: true }>, field: string): ApiError {
  if (upload.reason === "too_large") return imageTooLarge(upload.size);
  if (upload.reason === "unsupported")
    return new ApiError("unsupported_image_type", `${upload.message} The type is read from the bytes, not the name.`, {
      accepted_types: IMAGE_TYPES,
    });
  return invalidInput(field, upload.message);
}

/** The 502 of a model server's answer that readUpload refused: its bytes are checked as an upload's are. */
export function modelAnswerRefusal(answer: Exclude<Upload, { ok: true }>, model: string): ApiError {
  const why = answer.reason === "too_large" ? `it is larger than ${MAX_IMAGE_BYTES} bytes.` : answer.message;
  return new ApiError("upstream_invalid_response", `The image server's answer is not a usable image: ${why}`, {
    model,
  });
}
