/**
 * Reference ingestion (DESIGN §6): how a material sent as JSON content or as an uploaded file becomes the plain
 * text, title and passages that are stored. The conversion itself (text.ts ingestText) runs on the worker pool,
 * between referenceSource and referenceRecord.
 */
import type { NewReference, SourceType } from "../db/references.js";
import { charLength, sliceWhole, utf8CharLength } from "../runtime/chars.js";
import { ApiError, invalidInput } from "./errors.js";
import type { TextFormat } from "./text.js";

/** Limits of a reference material: the request body (JSON or multipart), its plain text and its title. */
export const REFERENCE_LIMITS = { bodyBytes: 5 * 1024 * 1024, contentChars: 500_000, titleChars: 200 } as const;

/**
 * How many characters of its format a material may have for each character of plain text it may become: the text
 * before conversion is held to REFERENCE_LIMITS.contentChars times this, checked before the conversion runs, so that
 * no input that could only be refused afterwards holds a worker thread (a 5 MiB Markdown upload did for 25 s).
 * Plain text loses only CR of CRLF, control characters, trailing spaces and blank lines; Markdown's markup (links'
 * targets, emphasis, inline HTML) seldom triples a text; an HTML page may carry ten times its text in tags and
 * attributes, so HTML is held to the request body's limit. Held by test/routes/reference-bounds.test.ts.
 */
export const RAW_CHARS_PER_TEXT_CHAR: Record<TextFormat, number> = { text: 2, markdown: 4, html: 11 };

/** The characters of `format` a material may have before conversion: never more than the body limit allows. */
export function rawCharLimit(format: TextFormat): number {
  return Math.min(REFERENCE_LIMITS.contentChars * RAW_CHARS_PER_TEXT_CHAR[format], REFERENCE_LIMITS.bodyBytes);
}

/** The formats a material may be sent in. */
export const REFERENCE_FORMATS = ["text", "markdown", "html"] as const satisfies readonly TextFormat[];

/** The format of JSON content sent without one (issue 31: a caller sending a title and a text means plain text). */
export const DEFAULT_FORMAT: TextFormat = "text";

/** How an uploaded file's format is told: by its extension, else by the type the client claimed. */
const FORMAT_BY_EXTENSION: Record<string, TextFormat> = {
  txt: "text",
  md: "markdown",
  markdown: "markdown",
  html: "html",
  htm: "html",
};
const FORMAT_BY_TYPE: Record<string, TextFormat> = {
  "text/plain": "text",
  "text/markdown": "markdown",
  "text/x-markdown": "markdown",
  "text/html": "html",
  "application/xhtml+xml": "html",
};

/** Longest title made up from a material's first line. */
const FIRST_LINE_TITLE_CHARS = 100;

/** A file part as the request body carries it (http/body.ts UploadedFile). */
export interface ReferenceFile {
  filename: string;
  /** The Content-Type the client claimed. */
  type: string;
  bytes: Uint8Array;
  /** Its characters as counted while it was read (http/body.ts), if they were. */
  chars?: number;
}

/** A material as a request sends it: content in a format (format or its other name source_type), or a file. */
export interface ReferenceInput {
  title?: string;
  content?: string;
  format?: TextFormat;
  source_type?: TextFormat;
  file?: ReferenceFile;
}

/** A material's text before conversion, with its format and the field of the request it came in. */
export interface ReferenceSource {
  format: TextFormat;
  text: string;
  /** Where the text was sent, for the path of an error about it. */
  where: "body.file" | "body.content";
}

/** What the conversion on the worker pool gives back (text.ts ingestText). */
export interface Ingested {
  content: string;
  wordCount: number;
  passages: { text: string; wordCount: number }[];
}

function unsupportedFile(file: ReferenceFile, why: string): ApiError {
  return new ApiError("unsupported_media_type", `The file ${JSON.stringify(file.filename)} ${why}.`, {
    filename: file.filename,
    type: file.type,
    accepted_extensions: Object.keys(FORMAT_BY_EXTENSION).map((e) => `.${e}`),
    accepted_types: Object.keys(FORMAT_BY_TYPE),
  });
}

/** The file's name without any folder a client may have sent with it. */
function baseName(filename: string): string {
  return filename.split(/[\\/]/).pop()!.trim();
}

/** The format and text of an uploaded file: a text, Markdown or HTML file of valid UTF-8, else 415. */
function readFile(file: ReferenceFile, format: TextFormat | undefined): { format: TextFormat; text: string } {
  const extension = /\.([^.]+)$/.exec(baseName(file.filename))?.[1]?.toLowerCase() ?? "";
  const claimed = file.type.split(";")[0].trim().toLowerCase();
  const chosen = format ?? FORMAT_BY_EXTENSION[extension] ?? FORMAT_BY_TYPE[claimed];
  if (!chosen) throw unsupportedFile(file, "is not a text, Markdown or HTML file");
  // Counted on the bytes first: a file past its format's limit is refused without being decoded either.
  const limit = rawCharLimit(chosen);
  if (file.bytes.length > limit) {
    const chars = file.chars ?? utf8CharLength(file.bytes);
    if (chars > limit) throw pastRawLimit("body.file", chosen, chars);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(file.bytes);
  } catch {
    throw unsupportedFile(file, "is not UTF-8 text");
  }
  // NUL never occurs in text, and always occurs in binary formats of any length.
  if (text.includes("\u0000")) throw unsupportedFile(file, "is binary, not text");
  return { format: chosen, text };
}

/** A title from the first line of the text, cut at a word boundary. */
function firstLineTitle(text: string): string {
  const line = (text.split("\n").find((l) => l.trim() !== "") ?? "").replace(/\s+/g, " ").trim();
  if (line.length <= FIRST_LINE_TITLE_CHARS) return line;
  // Not through a surrogate pair (half an emoji would be stored as U+FFFD).
  const cut = sliceWhole(line, FIRST_LINE_TITLE_CHARS);
  const space = cut.lastIndexOf(" ");
  return `${(space > FIRST_LINE_TITLE_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, "")}…`;
}

/**
 * The text to convert and its format: a file's, told by its extension or type (415 when it is not UTF-8 text), or
 * the JSON content's, in the format sent, else DEFAULT_FORMAT (test/routes/references.test.ts "defaults"). source_type
 * is another name for format (the records name theirs so); the request schema refuses the two differing.
 */
export function referenceSource(input: ReferenceInput): ReferenceSource {
  const format = input.format ?? input.source_type;
  if (input.file) return withinRawLimit({ ...readFile(input.file, format), where: "body.file" });
  return withinRawLimit({ format: format ?? DEFAULT_FORMAT, text: input.content!, where: "body.content" });
}

/** The source, if its text is within its format's limit before conversion (rawCharLimit); 400 otherwise. */
function withinRawLimit(source: ReferenceSource): ReferenceSource {
  const limit = rawCharLimit(source.format);
  const chars = source.text.length > limit ? charLength(source.text) : source.text.length;
  if (chars <= limit) return source;
  throw pastRawLimit(source.where, source.format, chars);
}

/** The 400 of a text of `chars` characters past its format's limit before conversion. */
function pastRawLimit(where: ReferenceSource["where"], format: TextFormat, chars: number): ApiError {
  const field = where.slice("body.".length);
  return invalidInput(
    where,
    `${field} must be at most ${rawCharLimit(format)} characters of ${format} (got ${chars}): its plain text may ` +
      `hold at most ${REFERENCE_LIMITS.contentChars}`,
  );
}

/** 400 for a text the conversion failed on: no input may cause a 5xx (DESIGN §3), this is the converters' last guard. */
export function unreadableSource(source: ReferenceSource): ApiError {
  const field = source.where.slice("body.".length);
  return invalidInput(source.where, `${field} cannot be read as ${source.format}`);
}

/** The title of a material: as sent, else its file's name, else its text's first line. */
function referenceTitle(input: ReferenceInput, content: string): string {
  // Cut by characters, not UTF-16 units: a cut through an emoji would leave half of it (U+FFFD).
  const fileTitle = input.file
    ? [...baseName(input.file.filename)].slice(0, REFERENCE_LIMITS.titleChars).join("").trim()
    : "";
  return (input.title || fileTitle || firstLineTitle(content)).toWellFormed();
}

/**
 * The record to store from a converted material: its plain text as well-formed UTF-8 (a lone surrogate becomes
 * U+FFFD), at most REFERENCE_LIMITS.contentChars characters and not empty (400 otherwise), and its title.
 */
export function referenceRecord(
  input: ReferenceInput,
  source: ReferenceSource,
  ingested: Ingested,
): Omit<NewReference, "accountId" | "workspaceId" | "now"> {
  const field = source.where.slice("body.".length);
  const content = ingested.content.toWellFormed();
  if (content === "") throw invalidInput(source.where, `${field} has no text`);
  const chars = content.length > REFERENCE_LIMITS.contentChars ? charLength(content) : content.length;
  if (chars > REFERENCE_LIMITS.contentChars)
    throw invalidInput(
      source.where,
      `${field} must be at most ${REFERENCE_LIMITS.contentChars} characters as plain text (got ${chars})`,
    );
  const sourceType: SourceType = input.file ? "file" : source.format;
  return {
    title: referenceTitle(input, content),
    content,
    sourceType,
    wordCount: ingested.wordCount,
    passages: ingested.passages,
  };
}
