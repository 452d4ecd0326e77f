-- Usage counters per account, API key and UTC day, and the completed responses of Idempotency-Key requests.

-- Counters are kept in memory and added here in batches (every few seconds and at shutdown): a flush adds its
-- increments to the day's row with an upsert, so rows only ever grow. key_id is '' for what no API key did
-- (web sessions, background learning analyses); a key's row outlives the key (no foreign key on key_id).
CREATE TABLE usage_daily (
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key_id TEXT NOT NULL,
  day TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
  requests INTEGER NOT NULL DEFAULT 0 CHECK (requests >= 0),
  generations INTEGER NOT NULL DEFAULT 0 CHECK (generations >= 0),
  words_generated INTEGER NOT NULL DEFAULT 0 CHECK (words_generated >= 0),
  finalizations INTEGER NOT NULL DEFAULT 0 CHECK (finalizations >= 0),
  learning_analyses INTEGER NOT NULL DEFAULT 0 CHECK (learning_analyses >= 0),
  images INTEGER NOT NULL DEFAULT 0 CHECK (images >= 0),
  PRIMARY KEY (account_id, key_id, day)
) WITHOUT ROWID;
CREATE INDEX usage_daily_account_day ON usage_daily(account_id, day);

-- The first completed response to a POST carrying an Idempotency-Key, per account, caller (an API key id, or
-- 'user:<id>' for a web session) and key; replayed until expires_at (24 h), then purged by a periodic job.
-- fingerprint is the SHA-256 of the method, path, query and body: the same key with another one is refused.
CREATE TABLE idempotency_keys (
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  caller TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  status INTEGER NOT NULL,
  -- JSON object of the response headers worth replaying (content-type, location, …).
  headers TEXT NOT NULL CHECK (json_valid(headers)),
  body BLOB NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (account_id, caller, idempotency_key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys(expires_at);
