-- Insights drawn from contents: conversions into other formats, and each workspace's knowledge graph.
-- Scoring stores nothing.

-- A content's text converted into another format; it goes with its content.
CREATE TABLE conversions (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  content_id INTEGER NOT NULL REFERENCES contents(id) ON DELETE CASCADE,
  target_format TEXT NOT NULL
    CHECK (target_format IN ('html', 'markdown', 'plain_text', 'social_thread', 'email')),
  output TEXT NOT NULL,
  -- social_thread only: a JSON array of the numbered posts.
  posts TEXT CHECK (posts IS NULL OR (json_valid(posts) AND json_type(posts) = 'array')),
  -- email only.
  subject TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX conversions_workspace ON conversions(workspace_id, id);
CREATE INDEX conversions_content ON conversions(content_id, id);

-- The knowledge graph of a workspace is kept per source document: what was extracted from each
-- reference material and each finalized (or published) content. A deleted source takes its rows with it
-- (the cascades), so the graph never shows a deleted source; new sources are extracted on the worker
-- pool after the request that added them. Nodes and edges are these rows summed per workspace.
CREATE TABLE graph_documents (
  id INTEGER PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  reference_id INTEGER REFERENCES reference_materials(id) ON DELETE CASCADE,
  content_id INTEGER REFERENCES contents(id) ON DELETE CASCADE,
  -- The source's version when extracted (a content's version_count; 0 for a reference, which never changes).
  version INTEGER NOT NULL,
  extracted_at TEXT NOT NULL,
  CHECK ((reference_id IS NULL) <> (content_id IS NULL))
);
CREATE UNIQUE INDEX graph_documents_reference ON graph_documents(reference_id) WHERE reference_id IS NOT NULL;
CREATE UNIQUE INDEX graph_documents_content ON graph_documents(content_id) WHERE content_id IS NOT NULL;
CREATE INDEX graph_documents_workspace ON graph_documents(workspace_id);

-- An entity found in one document: entity is the node id, search the lower-case label for lookups.
CREATE TABLE graph_mentions (
  document_id INTEGER NOT NULL REFERENCES graph_documents(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL,
  entity TEXT NOT NULL,
  label TEXT NOT NULL,
  search TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('proper_noun', 'key_phrase')),
  mentions INTEGER NOT NULL CHECK (mentions > 0),
  PRIMARY KEY (document_id, entity)
);
CREATE INDEX graph_mentions_entity ON graph_mentions(workspace_id, entity);

-- Two entities in the same sentence of one document: weight is the number of such sentences; source < target.
CREATE TABLE graph_pairs (
  document_id INTEGER NOT NULL REFERENCES graph_documents(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL,
  source TEXT NOT NULL,
  target TEXT NOT NULL,
  weight INTEGER NOT NULL CHECK (weight > 0),
  PRIMARY KEY (document_id, source, target),
  CHECK (source < target)
);
CREATE INDEX graph_pairs_source ON graph_pairs(workspace_id, source);
CREATE INDEX graph_pairs_target ON graph_pairs(workspace_id, target);

-- When each workspace's graph last caught up with its sources.
CREATE TABLE graph_state (
  workspace_id TEXT PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  updated_at TEXT NOT NULL
);
