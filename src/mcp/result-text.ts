/**
 * A tool call's answer read as text in pieces. Response.text() gathers the whole body into one buffer and decodes it
 * in one block: for a page of long texts (some 6 MB) that held the HTTP thread 40-70 ms, once per call of a batch.
 * Here each chunk is decoded as it arrives, and a chunk larger than DECODE_BYTES is decoded a slice at a time, each
 * in a turn of the large work (http/json-pieces.ts largeTurns). The text is Response.text()'s, character for
 * character: UTF-8 with a leading BOM dropped and a malformed sequence replaced (test/mcp/result-text.test.ts).
 */
import { largeTurns } from "../http/json-pieces.js";

/** The most bytes decoded in one go (about a millisecond of the thread); a larger chunk is decoded in slices. */
export const DECODE_BYTES = 256 * 1024;

/** The body's text, as Response.text() gives it, decoded chunk by chunk (a large chunk in turns). */
export async function resultText(response: Response): Promise<string> {
  if (response.body === null) return "";
  const decoder = new TextDecoder();
  const decode = (bytes: Uint8Array) => decoder.decode(bytes, { stream: true });
  const reader = response.body.getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.byteLength <= DECODE_BYTES) text += decode(value);
    else
      for (let at = 0; at < value.byteLength; at += DECODE_BYTES) {
        const slice = value.subarray(at, at + DECODE_BYTES);
        text += await largeTurns.run(() => decode(slice));
      }
  }
  return text + decoder.decode();
}
