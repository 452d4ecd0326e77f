-- Password changes and deletions of users and accounts (`users set-password`, `users delete`, `accounts delete`).
-- session_generation: a web-session token carries the generation it was issued at (claim gen, absent = 0) and is
-- refused once its user's has moved on; `users set-password` moves it, so a new password signs every old session out
-- (domain/sessions.ts; test/cli/user-passwords.test.ts). (PostgreSQL; rules in README.md.)
ALTER TABLE users ADD COLUMN session_generation BIGINT NOT NULL DEFAULT 0;

-- Account and user ids are never given again, as 0011 does for records: a deleted user's session token (its subject
-- is the user id) or a device approval must not become a later user's, nor a deleted account's audit log a later
-- account's. Each insert takes the next id from id_sequences, which these triggers keep at the largest id stored.
INSERT INTO id_sequences (name, seq)
  SELECT 'accounts', COALESCE(MAX(id), 0) FROM accounts
  UNION ALL SELECT 'users', COALESCE(MAX(id), 0) FROM users;

-- The functions of sql/postgres/0011, which name the row after the table.
CREATE TRIGGER accounts_id_sequence AFTER INSERT ON accounts
  FOR EACH ROW EXECUTE FUNCTION id_sequence_follows();
CREATE TRIGGER users_id_sequence AFTER INSERT ON users
  FOR EACH ROW EXECUTE FUNCTION id_sequence_follows();

-- As 0011: without its row in id_sequences an insert would take a deleted id again; refuse it instead.
CREATE TRIGGER accounts_id_sequence_present BEFORE INSERT ON accounts
  FOR EACH ROW EXECUTE FUNCTION id_sequence_present();
CREATE TRIGGER users_id_sequence_present BEFORE INSERT ON users
  FOR EACH ROW EXECUTE FUNCTION id_sequence_present();
