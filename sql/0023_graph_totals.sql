-- The knowledge graph answers in O(what it returns) (issue 33): its node and edge totals are kept as documents come
-- and go, and the sources it has yet to take in are queued by the writes that change them, so that no read sums every
-- mention or scans every source. Triggers keep both, so that a cascade (a reference, content or workspace deleted)
-- keeps them too. test/db/graph-totals.test.ts checks the totals against a sum from scratch and the queue's count.

-- A node: its mention rows summed. The label is the best mention row's (a proper noun first, then the most
-- mentions, then the label), kept with that row's key so that a new row replaces it only when better and only the
-- removal of the best row looks for the next best.
CREATE TABLE graph_nodes (
  workspace_id TEXT NOT NULL,
  entity TEXT NOT NULL,
  mentions INTEGER NOT NULL,
  source_count INTEGER NOT NULL,
  proper_count INTEGER NOT NULL,
  label TEXT NOT NULL,
  search TEXT NOT NULL,
  label_proper INTEGER NOT NULL,
  label_mentions INTEGER NOT NULL,
  type TEXT GENERATED ALWAYS AS (CASE WHEN proper_count > 0 THEN 'proper_noun' ELSE 'key_phrase' END) VIRTUAL,
  PRIMARY KEY (workspace_id, entity)
) WITHOUT ROWID;
-- The overview's order (most mentioned, then id). A type filter walks it too: an index of its own cost every
-- mention's save another index update (bench/graph-totals.ts), and each type is a large share of the nodes.
CREATE INDEX graph_nodes_top ON graph_nodes(workspace_id, mentions DESC, entity);

-- An edge: its pair rows summed (source < target).
CREATE TABLE graph_edges (
  workspace_id TEXT NOT NULL,
  source TEXT NOT NULL,
  target TEXT NOT NULL,
  weight INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, source, target)
) WITHOUT ROWID;
CREATE INDEX graph_edges_target ON graph_edges(workspace_id, target);

-- A node's sources in document order, the order its sources are paged in.
DROP INDEX graph_mentions_entity;
CREATE INDEX graph_mentions_entity ON graph_mentions(workspace_id, entity, document_id);

-- The sources a workspace's graph has yet to take in or drop: a reference added, a content that entered, changed
-- version in, or left the finalized and published statuses. A row goes when the graph is in sync with its source
-- (db/graph.ts SETTLE); graph_pending counts a workspace's rows, so that whether it is behind is one row's read.
CREATE TABLE graph_queue (
  workspace_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('reference', 'content')),
  source_id INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, kind, source_id)
) WITHOUT ROWID;
CREATE INDEX graph_queue_source ON graph_queue(kind, source_id);
CREATE TABLE graph_pending (
  workspace_id TEXT PRIMARY KEY,
  count INTEGER NOT NULL
) WITHOUT ROWID;

-- Backfill, before the triggers: the totals summed once, and the queue from the scans it replaces for reads.
INSERT INTO graph_nodes (workspace_id, entity, mentions, source_count, proper_count, label, search, label_proper,
  label_mentions)
SELECT workspace_id, entity, total, sources, proper, label, search, type = 'proper_noun', mentions FROM (
  SELECT m.*,
    row_number() OVER w AS r,
    sum(m.mentions) OVER p AS total, count(*) OVER p AS sources, sum(m.type = 'proper_noun') OVER p AS proper
  FROM graph_mentions AS m
  WINDOW p AS (PARTITION BY m.workspace_id, m.entity),
    w AS (PARTITION BY m.workspace_id, m.entity ORDER BY m.type = 'proper_noun' DESC, m.mentions DESC, m.label)
) WHERE r = 1;

INSERT INTO graph_edges (workspace_id, source, target, weight)
SELECT workspace_id, source, target, sum(weight) FROM graph_pairs GROUP BY workspace_id, source, target;

INSERT OR IGNORE INTO graph_queue (workspace_id, kind, source_id)
SELECT r.workspace_id, 'reference', r.id FROM reference_materials AS r
WHERE NOT EXISTS (SELECT 1 FROM graph_documents AS d WHERE d.reference_id = r.id);
INSERT OR IGNORE INTO graph_queue (workspace_id, kind, source_id)
SELECT c.workspace_id, 'content', c.id FROM contents AS c
WHERE c.status IN ('finalized', 'published')
  AND NOT EXISTS (SELECT 1 FROM graph_documents AS d WHERE d.content_id = c.id AND d.version = c.version_count
    AND d.workspace_id = c.workspace_id);
INSERT OR IGNORE INTO graph_queue (workspace_id, kind, source_id)
SELECT d.workspace_id, 'content', d.content_id FROM graph_documents AS d
WHERE d.content_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM contents AS c WHERE c.id = d.content_id
  AND c.workspace_id = d.workspace_id AND c.status IN ('finalized', 'published') AND c.version_count = d.version);

INSERT INTO graph_pending (workspace_id, count)
SELECT workspace_id, count(*) FROM graph_queue GROUP BY workspace_id;

-- The removal triggers run in cascades (a source, content or workspace deleted): their statements cannot fail (OR
-- IGNORE), as in sql/0013, since a trigger statement that might abort makes SQLite keep a statement journal of a
-- cascade's deletes. The additions run on a document's inserts only, one upsert a row.
CREATE TRIGGER graph_mentions_added AFTER INSERT ON graph_mentions BEGIN
  INSERT INTO graph_nodes (workspace_id, entity, mentions, source_count, proper_count, label, search,
    label_proper, label_mentions)
  VALUES (NEW.workspace_id, NEW.entity, NEW.mentions, 1, NEW.type = 'proper_noun', NEW.label, NEW.search,
    NEW.type = 'proper_noun', NEW.mentions)
  ON CONFLICT (workspace_id, entity) DO UPDATE SET
    mentions = mentions + excluded.mentions,
    source_count = source_count + 1,
    proper_count = proper_count + excluded.proper_count,
    -- The new row's label when it is better than the kept one (the same test in each column: SET reads old values).
    label = CASE WHEN (excluded.label_proper > label_proper OR (excluded.label_proper = label_proper
      AND (excluded.label_mentions > label_mentions OR (excluded.label_mentions = label_mentions AND excluded.label < label)))) THEN excluded.label ELSE label END,
    search = CASE WHEN (excluded.label_proper > label_proper OR (excluded.label_proper = label_proper
      AND (excluded.label_mentions > label_mentions OR (excluded.label_mentions = label_mentions AND excluded.label < label)))) THEN excluded.search ELSE search END,
    label_proper = CASE WHEN (excluded.label_proper > label_proper OR (excluded.label_proper = label_proper
      AND (excluded.label_mentions > label_mentions OR (excluded.label_mentions = label_mentions AND excluded.label < label)))) THEN excluded.label_proper ELSE label_proper END,
    label_mentions = CASE WHEN (excluded.label_proper > label_proper OR (excluded.label_proper = label_proper
      AND (excluded.label_mentions > label_mentions OR (excluded.label_mentions = label_mentions AND excluded.label < label)))) THEN excluded.label_mentions ELSE label_mentions END;
END;
CREATE TRIGGER graph_mentions_removed AFTER DELETE ON graph_mentions BEGIN
  UPDATE OR IGNORE graph_nodes SET
    mentions = mentions - OLD.mentions,
    source_count = source_count - 1,
    proper_count = proper_count - (OLD.type = 'proper_noun')
  WHERE workspace_id = OLD.workspace_id AND entity = OLD.entity;
  DELETE FROM graph_nodes WHERE workspace_id = OLD.workspace_id AND entity = OLD.entity AND source_count <= 0;
  UPDATE OR IGNORE graph_nodes SET (label, search, label_proper, label_mentions) = (
    SELECT l.label, l.search, l.type = 'proper_noun', l.mentions FROM graph_mentions AS l
    WHERE l.workspace_id = OLD.workspace_id AND l.entity = OLD.entity
    ORDER BY l.type = 'proper_noun' DESC, l.mentions DESC, l.label LIMIT 1)
  WHERE workspace_id = OLD.workspace_id AND entity = OLD.entity AND label = OLD.label
    AND label_proper = (OLD.type = 'proper_noun') AND label_mentions = OLD.mentions;
END;
CREATE TRIGGER graph_pairs_added AFTER INSERT ON graph_pairs BEGIN
  INSERT INTO graph_edges (workspace_id, source, target, weight) VALUES (NEW.workspace_id, NEW.source, NEW.target, NEW.weight)
  ON CONFLICT (workspace_id, source, target) DO UPDATE SET weight = weight + excluded.weight;
END;
CREATE TRIGGER graph_pairs_removed AFTER DELETE ON graph_pairs BEGIN
  UPDATE OR IGNORE graph_edges SET weight = weight - OLD.weight
  WHERE workspace_id = OLD.workspace_id AND source = OLD.source AND target = OLD.target;
  DELETE FROM graph_edges
  WHERE workspace_id = OLD.workspace_id AND source = OLD.source AND target = OLD.target AND weight <= 0;
END;

CREATE TRIGGER graph_queue_added AFTER INSERT ON graph_queue BEGIN
  INSERT OR IGNORE INTO graph_pending (workspace_id, count) VALUES (NEW.workspace_id, 0);
  UPDATE OR IGNORE graph_pending SET count = count + 1 WHERE workspace_id = NEW.workspace_id;
END;
CREATE TRIGGER graph_queue_removed AFTER DELETE ON graph_queue BEGIN
  UPDATE OR IGNORE graph_pending SET count = count - 1 WHERE workspace_id = OLD.workspace_id;
END;

CREATE TRIGGER graph_queue_reference_added AFTER INSERT ON reference_materials BEGIN
  INSERT OR IGNORE INTO graph_queue (workspace_id, kind, source_id) VALUES (NEW.workspace_id, 'reference', NEW.id);
END;
CREATE TRIGGER graph_queue_reference_removed AFTER DELETE ON reference_materials BEGIN
  DELETE FROM graph_queue WHERE workspace_id = OLD.workspace_id AND kind = 'reference' AND source_id = OLD.id;
END;
CREATE TRIGGER graph_queue_content_added AFTER INSERT ON contents
WHEN NEW.status IN ('finalized', 'published') BEGIN
  INSERT OR IGNORE INTO graph_queue (workspace_id, kind, source_id) VALUES (NEW.workspace_id, 'content', NEW.id);
END;
-- Queued where the graph shows it (a document to drop) and where it now belongs (a version to take in).
CREATE TRIGGER graph_queue_content_changed AFTER UPDATE OF status, version_count, workspace_id ON contents
WHEN (OLD.status IN ('finalized', 'published')) <> (NEW.status IN ('finalized', 'published'))
  OR OLD.version_count <> NEW.version_count OR OLD.workspace_id <> NEW.workspace_id BEGIN
  INSERT OR IGNORE INTO graph_queue (workspace_id, kind, source_id)
  SELECT d.workspace_id, 'content', NEW.id FROM graph_documents AS d WHERE d.content_id = NEW.id;
  INSERT OR IGNORE INTO graph_queue (workspace_id, kind, source_id)
  SELECT NEW.workspace_id, 'content', NEW.id WHERE NEW.status IN ('finalized', 'published');
END;
CREATE TRIGGER graph_queue_content_removed AFTER DELETE ON contents BEGIN
  DELETE FROM graph_queue WHERE kind = 'content' AND source_id = OLD.id;
END;
CREATE TRIGGER graph_queue_workspace_removed AFTER DELETE ON workspaces BEGIN
  DELETE FROM graph_queue WHERE workspace_id = OLD.id;
  DELETE FROM graph_pending WHERE workspace_id = OLD.id;
END;
