/**
 * What every format's reader shares: bounds-checked reads of a file's bytes and the error a malformed file raises.
 */

/** The width and height of an image, in pixels. */
export type Size = { width: number; height: number };

/** A file that is truncated or does not follow its format's structure; the message says what is wrong. */
export class ImageHeaderError extends Error {}

/** Refuses the file being read: throws ImageHeaderError with a message that says what is wrong. */
export function corrupt(message: string): never {
  throw new ImageHeaderError(message);
}

/** The bytes at [at, at + length) as Latin-1 text (chunk types, signatures). */
export function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

/** Bounds-checked little- and big-endian reads that report truncation instead of reading past the end. */
export class Reader {
  constructor(
    readonly bytes: Uint8Array,
    readonly format: string,
  ) {}
  need(end: number): void {
    if (end > this.bytes.length) corrupt(`The ${this.format} file is truncated.`);
  }
  u8(at: number): number {
    this.need(at + 1);
    return this.bytes[at];
  }
  u16be(at: number): number {
    this.need(at + 2);
    return (this.bytes[at] << 8) | this.bytes[at + 1];
  }
  u16le(at: number): number {
    this.need(at + 2);
    return this.bytes[at] | (this.bytes[at + 1] << 8);
  }
  u24le(at: number): number {
    this.need(at + 3);
    return this.bytes[at] | (this.bytes[at + 1] << 8) | (this.bytes[at + 2] << 16);
  }
  u32be(at: number): number {
    this.need(at + 4);
    return (
      ((this.bytes[at] << 24) >>> 0) + ((this.bytes[at + 1] << 16) | (this.bytes[at + 2] << 8) | this.bytes[at + 3])
    );
  }
  u32le(at: number): number {
    this.need(at + 4);
    return (
      ((this.bytes[at + 3] << 24) >>> 0) + ((this.bytes[at + 2] << 16) | (this.bytes[at + 1] << 8) | this.bytes[at])
    );
  }
}
