-- Password changes and deletions of users and accounts (`users set-password`, `users delete`, `accounts delete`).
-- session_generation: a web-session token carries the generation it was issued at (claim gen, absent = 0) and is
-- refused once its user's has moved on; `users set-password` moves it, so a new password signs every old session out
-- (domain/sessions.ts; test/cli/user-passwords.test.ts).
ALTER TABLE users ADD COLUMN session_generation INTEGER NOT NULL DEFAULT 0;

-- Account and user ids are never given again, as 0011 does for records: a deleted user's session token (its subject
-- is the user id) or a device approval must not become a later user's, nor a deleted account's audit log a later
-- account's. Each insert takes the next id from id_sequences, which these triggers keep at the largest id stored.
INSERT INTO id_sequences (name, seq)
  SELECT 'accounts', COALESCE(MAX(id), 0) FROM accounts
  UNION ALL SELECT 'users', COALESCE(MAX(id), 0) FROM users;

CREATE TRIGGER accounts_id_sequence AFTER INSERT ON accounts BEGIN
  UPDATE id_sequences SET seq = MAX(seq, NEW.id) WHERE name = 'accounts';
END;
CREATE TRIGGER users_id_sequence AFTER INSERT ON users BEGIN
  UPDATE id_sequences SET seq = MAX(seq, NEW.id) WHERE name = 'users';
END;

-- As 0011: without its row in id_sequences an insert would take a deleted id again; refuse it instead.
CREATE TRIGGER accounts_id_sequence_present BEFORE INSERT ON accounts
  WHEN NOT EXISTS (SELECT 1 FROM id_sequences WHERE name = 'accounts')
  BEGIN SELECT RAISE(ABORT, 'id_sequences has no row for accounts'); END;
CREATE TRIGGER users_id_sequence_present BEFORE INSERT ON users
  WHEN NOT EXISTS (SELECT 1 FROM id_sequences WHERE name = 'users')
  BEGIN SELECT RAISE(ABORT, 'id_sequences has no row for users'); END;
