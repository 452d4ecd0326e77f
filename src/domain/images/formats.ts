/**
 * The image types the service stores and the limits every image is held to, however it arrives.
 */

/** The largest image accepted, in bytes of the image itself (DESIGN §3). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/** The image types the service stores; nothing else is accepted. */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

/** One of IMAGE_TYPES. */
export type ImageType = (typeof IMAGE_TYPES)[number];

/**
 * The largest width and height accepted, in pixels a side: a bound on what a client that opens the image must
 * decode (16,384 × 16,384 is already 1 GiB of RGBA), and WebP's own limit for a still image.
 */
export const MAX_IMAGE_SIDE = 16_384;

/** The usual file extension of an image type. */
export function extensionOf(type: ImageType): string {
  return { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp" }[type];
}
