/**
 * Lengths and cuts of strings by Unicode code points, where UTF-16 units (String.length, slice) would count an emoji
 * twice or cut it in half. No imports: the database queries, the schemas and the text tools all use it.
 */

/**
 * A string's length in characters: Unicode code points, as JSON Schema's maxLength counts them (a surrogate pair, as
 * in most emoji, is one character; a lone surrogate is one too).
 */
export function charLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) continue;
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) {
      n--;
      i++;
    }
  }
  return n;
}

/**
 * The first `units` UTF-16 units of a string, one fewer when the cut would split a surrogate pair: half an emoji is a
 * lone surrogate, which JSON carries as `\ud83d` and a UTF-8 encoder turns into U+FFFD.
 */
export function sliceWhole(s: string, units: number): string {
  const cut = s.slice(0, units);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff && s.length > units ? cut.slice(0, -1) : cut;
}

/**
 * The characters (code points) of UTF-8 bytes, counted without decoding them: every byte that does not continue a
 * sequence (10xxxxxx) starts one. Exact for valid UTF-8, which is what it is used on before decoding.
 */
export function utf8CharLength(bytes: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < bytes.length; i++) if ((bytes[i] & 0xc0) !== 0x80) n++;
  return n;
}
