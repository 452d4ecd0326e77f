-- Contents with their versions, learning jobs and the voice profile each workspace learns.
CREATE TABLE contents (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  template_id INTEGER REFERENCES templates(id) ON DELETE SET NULL,
  title TEXT NOT NULL DEFAULT '',
  content TEXT NOT NULL DEFAULT '',
  finalized_content TEXT,
  status TEXT NOT NULL CHECK (status IN ('draft', 'generated', 'finalized', 'published')),
  scheduled_publish_at TEXT,
  scheduled_publish_day TEXT,
  published_at TEXT,
  version_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX contents_workspace ON contents(workspace_id, id);
CREATE INDEX contents_planned ON contents(workspace_id, scheduled_publish_day);

-- Every generation and the finalization, in order.
CREATE TABLE content_versions (
  id INTEGER PRIMARY KEY,
  content_id INTEGER NOT NULL REFERENCES contents(id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('generated', 'finalized')),
  title TEXT NOT NULL,
  text TEXT NOT NULL,
  model TEXT,
  details TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (content_id, version)
);

CREATE TABLE learning_jobs (
  id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  content_id INTEGER NOT NULL REFERENCES contents(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  input TEXT NOT NULL,
  result TEXT,
  error TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
CREATE INDEX learning_jobs_status ON learning_jobs(status, next_attempt_at);
CREATE INDEX learning_jobs_account_month ON learning_jobs(account_id, created_at);

CREATE TABLE voice_profiles (
  id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL UNIQUE REFERENCES workspaces(id) ON DELETE CASCADE,
  traits TEXT NOT NULL,
  sample_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX voice_profiles_account ON voice_profiles(account_id);
