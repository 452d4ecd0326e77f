/** Queries on images: metadata reads never load the bytes; only `content` does. */
import type { SqlConnection } from "./connection.js";

/** An image's stored metadata (every column but the bytes). */
export interface ImageRow {
  id: number;
  account_id: number;
  filename: string;
  mime_type: string;
  size_bytes: number;
  width: number;
  height: number;
  source: "upload" | "generated";
  prompt: string | null;
  sha256: string;
  created_at: string;
}

/** The bytes of an image with what serving them needs. */
export interface ImageContent {
  mime_type: string;
  size_bytes: number;
  sha256: string;
  filename: string;
  data: Buffer;
}

/** A new image: its metadata and bytes. */
export type NewImage = Omit<ImageRow, "id" | "created_at"> & { data: Uint8Array };

const COLUMNS = "id, account_id, filename, mime_type, size_bytes, width, height, source, prompt, sha256, created_at";

/**
 * An account's images newest first, all or of one source (images_account, images_source; test/db/list-plans.test.ts).
 * The cursor is the id of the last image of the previous page.
 */
export const IMAGE_PAGE_SQL = {
  all: `SELECT ${COLUMNS} FROM images WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
  ofSource: `SELECT ${COLUMNS} FROM images WHERE account_id = ? AND id < ? AND source = ? ORDER BY id DESC LIMIT ?`,
};

/** Prepared image statements of one connection. */
export function imageQueries(db: SqlConnection) {
  const find = db.prepare<[number, number], ImageRow>(`SELECT ${COLUMNS} FROM images WHERE id = ? AND account_id = ?`);
  const content = db.prepare<[number, number], ImageContent>(
    "SELECT mime_type, size_bytes, sha256, filename, data FROM images WHERE id = ? AND account_id = ?",
  );
  const page = db.prepare<[number, number, number], ImageRow>(IMAGE_PAGE_SQL.all);
  const pageOfSource = db.prepare<[number, number, string, number], ImageRow>(IMAGE_PAGE_SQL.ofSource);
  const insert = db
    .prepare<[number, string, string, number, number, number, string, string | null, string, Buffer, string], number>(
      `INSERT INTO images (account_id, filename, mime_type, size_bytes, width, height, source, prompt, sha256, data,
         created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    )
    .pluck();
  const remove = db.prepare<[number, number]>("DELETE FROM images WHERE id = ? AND account_id = ?");

  return {
    /** An image of the account, or undefined (another account's image is not found either). */
    find: (accountId: number, id: number) => find.get(id, accountId),
    /** The bytes of an image of the account. */
    content: (accountId: number, id: number) => content.get(id, accountId),
    /** Up to `limit` images of the account with ids below `beforeId`, newest first. */
    page: (accountId: number, beforeId: number, limit: number, source?: "upload" | "generated") =>
      source === undefined
        ? page.all(accountId, beforeId, limit)
        : pageOfSource.all(accountId, beforeId, source, limit),
    create(accountId: number, image: Omit<NewImage, "account_id">, now: string): ImageRow {
      const id = Number(
        insert.get(
          accountId,
          image.filename,
          image.mime_type,
          image.size_bytes,
          image.width,
          image.height,
          image.source,
          image.prompt,
          image.sha256,
          Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength),
          now,
        ),
      );
      return find.get(id, accountId)!;
    },
    /** Deletes an image of the account; false when there was none. */
    remove: (accountId: number, id: number) => remove.run(id, accountId).changes > 0,
  };
}
