-- Usage counters per account, API key and UTC day, and the completed responses of Idempotency-Key requests
-- (PostgreSQL; rules in README.md).

-- Counters are kept in memory and added here in batches (every few seconds and at shutdown): a flush adds its
-- increments to the day's row with an upsert, so rows only ever grow. key_id is '' for what no API key did
-- (web sessions, background learning analyses); a key's row outlives the key (no foreign key on key_id).
-- The day's check is SQLite's GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' (a GLOB matches the whole text).
CREATE TABLE usage_daily (
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key_id TEXT COLLATE "C" NOT NULL,
  day TEXT COLLATE "C" NOT NULL CHECK (day ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  requests BIGINT NOT NULL DEFAULT 0 CHECK (requests >= 0),
  generations BIGINT NOT NULL DEFAULT 0 CHECK (generations >= 0),
  words_generated BIGINT NOT NULL DEFAULT 0 CHECK (words_generated >= 0),
  finalizations BIGINT NOT NULL DEFAULT 0 CHECK (finalizations >= 0),
  learning_analyses BIGINT NOT NULL DEFAULT 0 CHECK (learning_analyses >= 0),
  images BIGINT NOT NULL DEFAULT 0 CHECK (images >= 0),
  PRIMARY KEY (account_id, key_id, day)
);
CREATE INDEX usage_daily_account_day ON usage_daily(account_id, day);

-- The first completed response to a POST carrying an Idempotency-Key, per account, caller (an API key id, or
-- 'user:<id>' for a web session) and key; replayed until expires_at (24 h), then purged by a periodic job.
-- fingerprint is the SHA-256 of the method, path, query and body: the same key with another one is refused.
CREATE TABLE idempotency_keys (
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  caller TEXT COLLATE "C" NOT NULL,
  idempotency_key TEXT COLLATE "C" NOT NULL,
  fingerprint TEXT COLLATE "C" NOT NULL,
  status BIGINT NOT NULL,
  -- JSON object of the response headers worth replaying (content-type, location, …).
  headers TEXT COLLATE "C" NOT NULL CHECK (is_json(headers)),
  body BYTEA NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  expires_at TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (account_id, caller, idempotency_key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys(expires_at);
