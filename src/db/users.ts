/** Queries on web-session users. */
import type { SqlConnection } from "./connection.js";
import { sqlFor } from "./dialect.js";

/** What a web-session user may do: an admin also manages the account's users and sees its audit log. */
export type Role = "admin" | "member";

/** One stored web-session user; the password is kept only as its hash. */
export interface UserRow {
  id: number;
  account_id: number;
  email: string;
  password_hash: string;
  role: Role;
  created_at: string;
  /** Moved by each password change; a session token of an older generation is refused (domain/sessions.ts). */
  session_generation: number;
}

/** Prepared user statements of one connection. */
export function userQueries(db: SqlConnection) {
  const byId = db.prepare<[number], UserRow>("SELECT * FROM users WHERE id = ?");
  const byEmail = db.prepare<[string], UserRow>("SELECT * FROM users WHERE email = ?");
  // The addresses with a character outside printable ASCII: the only ones whose NFC form can differ from them.
  // SQLite's GLOB and PostgreSQL's regular expression say the same; PostgreSQL has no GLOB, SQLite no `~`.
  const nonAscii = db.prepare<[], UserRow>(
    sqlFor(db, {
      sqlite: "SELECT * FROM users WHERE email GLOB '*[^ -~]*' ORDER BY id",
      postgres: "SELECT * FROM users WHERE email ~ '[^ -~]' ORDER BY id",
    }),
  );
  const all = db.prepare<[], UserRow>("SELECT * FROM users ORDER BY id");
  const byAccount = db.prepare<[number], UserRow>("SELECT * FROM users WHERE account_id = ? ORDER BY id");
  const insert = db
    .prepare<[number, string, string, string, string], number>(
      // The id from id_sequences: never one a deleted user had (sql/0020_user_sessions_and_ids.sql).
      `INSERT INTO users (id, account_id, email, password_hash, role, created_at)
       VALUES ((SELECT seq + 1 FROM id_sequences WHERE name = 'users'), ?, ?, ?, ?, ?) RETURNING id`,
    )
    .pluck();
  const setPassword = db.prepare<[string, number]>(
    "UPDATE users SET password_hash = ?, session_generation = session_generation + 1 WHERE id = ?",
  );
  const remove = db.prepare<[number]>("DELETE FROM users WHERE id = ?");
  return {
    byId: (id: number) => byId.get(id),
    /**
     * The user of an email, compared in Unicode NFC (admin-rules.ts Email stores that form). A user stored before
     * the rule, with another form (`e` and a combining accent), is found by a second look among the non-ASCII
     * addresses, each normalised here: no migration rewrites them, and a login or a duplicate check finds them all
     * the same.
     */
    byEmail(email: string): UserRow | undefined {
      const nfc = email.normalize("NFC");
      const exact = byEmail.get(nfc);
      // Not skipped for an ASCII address: a non-ASCII one can normalise to it (U+212A KELVIN SIGN is K in NFC).
      if (exact) return exact;
      return nonAscii.all().find((u) => u.email.normalize("NFC") === nfc);
    },
    list: (accountId?: number) => (accountId === undefined ? all.all() : byAccount.all(accountId)),
    create(accountId: number, email: string, passwordHash: string, role: Role, now: string): UserRow {
      const id = Number(insert.get(accountId, email, passwordHash, role, now));
      return byId.get(id)!;
    },
    /** Stores a new password hash and moves the session generation: the user's sessions end. */
    setPassword: (id: number, passwordHash: string) => setPassword.run(passwordHash, id).changes > 0,
    remove: (id: number) => remove.run(id).changes > 0,
  };
}
