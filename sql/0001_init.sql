-- Accounts, workspaces, users, API keys, server settings and the audit log.
CREATE TABLE accounts (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  plan TEXT NOT NULL CHECK (plan IN ('starter', 'pro', 'business', 'agency')),
  rate_per_minute INTEGER,
  rate_per_hour INTEGER,
  created_at TEXT NOT NULL
);

CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  is_default INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE INDEX workspaces_account ON workspaces(account_id);
CREATE UNIQUE INDEX workspaces_one_default ON workspaces(account_id) WHERE is_default = 1;

CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password_hash TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
  created_at TEXT NOT NULL
);

-- scopes is a JSON array; NULL marks a key made before scopes existed (acts as read+write).
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  display_prefix TEXT NOT NULL,
  scopes TEXT,
  workspace_id TEXT REFERENCES workspaces(id) ON DELETE CASCADE,
  expires_at TEXT,
  last_used_at TEXT,
  revoked_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX api_keys_account ON api_keys(account_id);

-- Web-session tokens revoked by logout before their expiry.
CREATE TABLE revoked_sessions (
  jti TEXT PRIMARY KEY,
  expires_at TEXT NOT NULL
);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  account_id INTEGER,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT,
  details TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX audit_log_account ON audit_log(account_id, id);

-- Per-user dashboard settings (JSON object).
CREATE TABLE user_settings (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  value TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- Per-account learning preferences; absent means learning on.
CREATE TABLE learning_preferences (
  account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  enabled INTEGER NOT NULL,
  apply_to_generation INTEGER NOT NULL,
  updated_at TEXT NOT NULL
);
