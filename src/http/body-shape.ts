/**
 * Counting a body's parts before parsing it. JSON.parse and multipart parsing run on the thread answering every
 * request, and their cost grows with the number of values, not the bytes: a 14 MB JSON object of 1.3 million keys
 * (allowed by an image upload's size limit) held that thread for 1.3 s, 4.3 s with the Idempotency-Key fingerprint
 * that sorts every object's keys, and 274,000 empty multipart parts for 0.9 s. No operation takes anywhere near these
 * numbers, so a body past them is refused before it is parsed, for a few milliseconds of scanning.
 */

/** The most structural tokens (`{`, `[`, `:`, `,`) a JSON body may have: about as many values and keys. */
export const MAX_JSON_TOKENS = 20_000;

/** The most parts a multipart/form-data body may have (an upload has a file and a few fields). */
export const MAX_MULTIPART_PARTS = 100;

/**
 * Whether JSON text has more than `max` structural tokens outside its strings. Strings are skipped with indexOf (a
 * base64 image is one long string: one call), and each quote's escaping is decided by the backslashes just before it,
 * each of which is looked at once. Invalid JSON is left for JSON.parse to refuse.
 */
export function jsonTokensExceed(text: string, max: number): boolean {
  let tokens = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let end = i + 1;
      for (;;) {
        end = text.indexOf('"', end);
        if (end < 0) return false;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
        end++;
      }
      i = end;
    } else if ((c === 0x2c || c === 0x3a || c === 0x5b || c === 0x7b) && ++tokens > max) return true;
  }
  return false;
}

/** The boundary of a multipart/form-data Content-Type, or undefined. */
function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match ? (match[1] ?? match[2]) : undefined;
}

/** Whether a multipart body has more than `max` parts (delimiter lines counted with Buffer's native search). */
export function multipartPartsExceed(bytes: Uint8Array, contentType: string, max: number): boolean {
  const boundary = boundaryOf(contentType);
  if (!boundary) return false;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const delimiter = Buffer.from(`--${boundary}`, "latin1");
  let parts = -1;
  for (let at = buffer.indexOf(delimiter); at >= 0; at = buffer.indexOf(delimiter, at + delimiter.length))
    if (++parts > max) return true;
  return false;
}
