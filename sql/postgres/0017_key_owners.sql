-- Who made a key and which key it replaced (DESIGN §10 roles; `keys rotate`). created_by_user_id: the user whose web
-- session issued it; NULL for a key of the command line, which belongs to the account (its admins manage it), and
-- for a key whose user was deleted. replaces_key_id: the key a rotation issued this one for.
-- (PostgreSQL; rules in README.md.)
ALTER TABLE api_keys ADD COLUMN created_by_user_id BIGINT REFERENCES users(id) ON DELETE SET NULL;
ALTER TABLE api_keys ADD COLUMN replaces_key_id TEXT COLLATE "C" REFERENCES api_keys(id) ON DELETE SET NULL;
