-- The knowledge graph answers in O(what it returns) (issue 33): its node and edge totals are kept as documents come
-- and go, and the sources it has yet to take in are queued by the writes that change them, so that no read sums every
-- mention or scans every source. Triggers keep both, so that a cascade (a reference, content or workspace deleted)
-- keeps them too. test/db/graph-totals.test.ts checks the totals against a sum from scratch and the queue's count;
-- test/db/pg-schema.test.ts drives these triggers and SQLite's alike. (PostgreSQL; rules in README.md.)

-- A node: its mention rows summed. The label is the best mention row's (a proper noun first, then the most
-- mentions, then the label), kept with that row's key so that a new row replaces it only when better and only the
-- removal of the best row looks for the next best.
CREATE TABLE graph_nodes (
  workspace_id TEXT COLLATE "C" NOT NULL,
  entity TEXT COLLATE "C" NOT NULL,
  mentions BIGINT NOT NULL,
  source_count BIGINT NOT NULL,
  proper_count BIGINT NOT NULL,
  label TEXT COLLATE "C" NOT NULL,
  search TEXT COLLATE "C" NOT NULL,
  label_proper BIGINT NOT NULL,
  label_mentions BIGINT NOT NULL,
  type TEXT COLLATE "C" GENERATED ALWAYS AS (CASE WHEN proper_count > 0 THEN 'proper_noun' ELSE 'key_phrase' END) STORED,
  PRIMARY KEY (workspace_id, entity)
);
-- The overview's order (most mentioned, then id). A type filter walks it too: an index of its own cost every
-- mention's save another index update (bench/graph-totals.ts), and each type is a large share of the nodes.
CREATE INDEX graph_nodes_top ON graph_nodes(workspace_id, mentions DESC, entity);

-- An edge: its pair rows summed (source < target).
CREATE TABLE graph_edges (
  workspace_id TEXT COLLATE "C" NOT NULL,
  source TEXT COLLATE "C" NOT NULL,
  target TEXT COLLATE "C" NOT NULL,
  weight BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, source, target)
);
CREATE INDEX graph_edges_target ON graph_edges(workspace_id, target);

-- A node's sources in document order, the order its sources are paged in.
DROP INDEX graph_mentions_entity;
CREATE INDEX graph_mentions_entity ON graph_mentions(workspace_id, entity, document_id);

-- The sources a workspace's graph has yet to take in or drop: a reference added, a content that entered, changed
-- version in, or left the finalized and published statuses. A row goes when the graph is in sync with its source
-- (db/graph.ts SETTLE); graph_pending counts a workspace's rows, so that whether it is behind is one row's read.
CREATE TABLE graph_queue (
  workspace_id TEXT COLLATE "C" NOT NULL,
  kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('reference', 'content')),
  source_id BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, kind, source_id)
);
CREATE INDEX graph_queue_source ON graph_queue(kind, source_id);
CREATE TABLE graph_pending (
  workspace_id TEXT COLLATE "C" PRIMARY KEY,
  count BIGINT NOT NULL
);

-- Backfill, before the triggers: the totals summed once, and the queue from the scans it replaces for reads.
-- SQLite's booleans are the integers 0 and 1, which ::int gives here.
INSERT INTO graph_nodes (workspace_id, entity, mentions, source_count, proper_count, label, search, label_proper,
  label_mentions)
SELECT workspace_id, entity, total, sources, proper, label, search, (type = 'proper_noun')::int, mentions FROM (
  SELECT m.*,
    row_number() OVER w AS r,
    sum(m.mentions) OVER p AS total, count(*) OVER p AS sources, sum((m.type = 'proper_noun')::int) OVER p AS proper
  FROM graph_mentions AS m
  WINDOW p AS (PARTITION BY m.workspace_id, m.entity),
    w AS (PARTITION BY m.workspace_id, m.entity ORDER BY m.type = 'proper_noun' DESC, m.mentions DESC, m.label)
) AS ranked WHERE r = 1;

INSERT INTO graph_edges (workspace_id, source, target, weight)
SELECT workspace_id, source, target, sum(weight) FROM graph_pairs GROUP BY workspace_id, source, target;

INSERT INTO graph_queue (workspace_id, kind, source_id)
SELECT r.workspace_id, 'reference', r.id FROM reference_materials AS r
WHERE NOT EXISTS (SELECT 1 FROM graph_documents AS d WHERE d.reference_id = r.id)
ON CONFLICT DO NOTHING;
INSERT INTO graph_queue (workspace_id, kind, source_id)
SELECT c.workspace_id, 'content', c.id FROM contents AS c
WHERE c.status IN ('finalized', 'published')
  AND NOT EXISTS (SELECT 1 FROM graph_documents AS d WHERE d.content_id = c.id AND d.version = c.version_count
    AND d.workspace_id = c.workspace_id)
ON CONFLICT DO NOTHING;
INSERT INTO graph_queue (workspace_id, kind, source_id)
SELECT d.workspace_id, 'content', d.content_id FROM graph_documents AS d
WHERE d.content_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM contents AS c WHERE c.id = d.content_id
  AND c.workspace_id = d.workspace_id AND c.status IN ('finalized', 'published') AND c.version_count = d.version)
ON CONFLICT DO NOTHING;

INSERT INTO graph_pending (workspace_id, count)
SELECT workspace_id, count(*) FROM graph_queue GROUP BY workspace_id;

-- SQLite's removal triggers run statements that cannot fail (OR IGNORE) for its statement journal's sake; here the
-- same rows change. Where SQLite's UPDATE OR IGNORE skips a NULL it cannot store (no mention row left to take the
-- label from), the UPDATE ... FROM below finds no row and changes nothing. PostgreSQL runs a statement's AFTER ROW
-- triggers once the statement has changed all its rows (SQLite: after each row); the totals come out the same.
CREATE FUNCTION graph_mentions_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_nodes AS n (workspace_id, entity, mentions, source_count, proper_count, label, search,
    label_proper, label_mentions)
  VALUES (NEW.workspace_id, NEW.entity, NEW.mentions, 1, (NEW.type = 'proper_noun')::int, NEW.label, NEW.search,
    (NEW.type = 'proper_noun')::int, NEW.mentions)
  ON CONFLICT (workspace_id, entity) DO UPDATE SET
    mentions = n.mentions + excluded.mentions,
    source_count = n.source_count + 1,
    proper_count = n.proper_count + excluded.proper_count,
    -- The new row's label when it is better than the kept one: a proper noun first, then more mentions, then the
    -- lesser label (SQLite's test, as one row comparison; SET reads the old values in each column).
    label = CASE WHEN (excluded.label_proper, excluded.label_mentions, n.label)
      > (n.label_proper, n.label_mentions, excluded.label) THEN excluded.label ELSE n.label END,
    search = CASE WHEN (excluded.label_proper, excluded.label_mentions, n.label)
      > (n.label_proper, n.label_mentions, excluded.label) THEN excluded.search ELSE n.search END,
    label_proper = CASE WHEN (excluded.label_proper, excluded.label_mentions, n.label)
      > (n.label_proper, n.label_mentions, excluded.label) THEN excluded.label_proper ELSE n.label_proper END,
    label_mentions = CASE WHEN (excluded.label_proper, excluded.label_mentions, n.label)
      > (n.label_proper, n.label_mentions, excluded.label) THEN excluded.label_mentions ELSE n.label_mentions END;
  RETURN NULL;
END;
$$;
CREATE TRIGGER graph_mentions_added AFTER INSERT ON graph_mentions
  FOR EACH ROW EXECUTE FUNCTION graph_mentions_added();

CREATE FUNCTION graph_mentions_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE graph_nodes SET
    mentions = mentions - OLD.mentions,
    source_count = source_count - 1,
    proper_count = proper_count - (OLD.type = 'proper_noun')::int
  WHERE workspace_id = OLD.workspace_id AND entity = OLD.entity;
  DELETE FROM graph_nodes WHERE workspace_id = OLD.workspace_id AND entity = OLD.entity AND source_count <= 0;
  UPDATE graph_nodes AS n SET (label, search, label_proper, label_mentions) = (l.label, l.search, l.proper, l.mentions)
  FROM (
    SELECT m.label, m.search, (m.type = 'proper_noun')::int AS proper, m.mentions FROM graph_mentions AS m
    WHERE m.workspace_id = OLD.workspace_id AND m.entity = OLD.entity
    ORDER BY m.type = 'proper_noun' DESC, m.mentions DESC, m.label LIMIT 1
  ) AS l
  WHERE n.workspace_id = OLD.workspace_id AND n.entity = OLD.entity AND n.label = OLD.label
    AND n.label_proper = (OLD.type = 'proper_noun')::int AND n.label_mentions = OLD.mentions;
  RETURN NULL;
END;
$$;
CREATE TRIGGER graph_mentions_removed AFTER DELETE ON graph_mentions
  FOR EACH ROW EXECUTE FUNCTION graph_mentions_removed();

CREATE FUNCTION graph_pairs_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_edges AS e (workspace_id, source, target, weight)
  VALUES (NEW.workspace_id, NEW.source, NEW.target, NEW.weight)
  ON CONFLICT (workspace_id, source, target) DO UPDATE SET weight = e.weight + excluded.weight;
  RETURN NULL;
END;
$$;
CREATE TRIGGER graph_pairs_added AFTER INSERT ON graph_pairs
  FOR EACH ROW EXECUTE FUNCTION graph_pairs_added();

CREATE FUNCTION graph_pairs_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE graph_edges SET weight = weight - OLD.weight
  WHERE workspace_id = OLD.workspace_id AND source = OLD.source AND target = OLD.target;
  DELETE FROM graph_edges
  WHERE workspace_id = OLD.workspace_id AND source = OLD.source AND target = OLD.target AND weight <= 0;
  RETURN NULL;
END;
$$;
CREATE TRIGGER graph_pairs_removed AFTER DELETE ON graph_pairs
  FOR EACH ROW EXECUTE FUNCTION graph_pairs_removed();

-- One upsert where SQLite's trigger runs an INSERT OR IGNORE of count 0 and an UPDATE of count + 1, as in 0013.
CREATE FUNCTION graph_queue_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_pending AS p (workspace_id, count) VALUES (NEW.workspace_id, 1)
  ON CONFLICT (workspace_id) DO UPDATE SET count = p.count + 1;
  RETURN NULL;
END;
$$;
CREATE TRIGGER graph_queue_added AFTER INSERT ON graph_queue
  FOR EACH ROW EXECUTE FUNCTION graph_queue_added();

CREATE FUNCTION graph_queue_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE graph_pending SET count = count - 1 WHERE workspace_id = OLD.workspace_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER graph_queue_removed AFTER DELETE ON graph_queue
  FOR EACH ROW EXECUTE FUNCTION graph_queue_removed();

CREATE FUNCTION graph_queue_reference_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_queue (workspace_id, kind, source_id) VALUES (NEW.workspace_id, 'reference', NEW.id)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END;
$$;
CREATE TRIGGER graph_queue_reference_added AFTER INSERT ON reference_materials
  FOR EACH ROW EXECUTE FUNCTION graph_queue_reference_added();

CREATE FUNCTION graph_queue_reference_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM graph_queue WHERE workspace_id = OLD.workspace_id AND kind = 'reference' AND source_id = OLD.id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER graph_queue_reference_removed AFTER DELETE ON reference_materials
  FOR EACH ROW EXECUTE FUNCTION graph_queue_reference_removed();

CREATE FUNCTION graph_queue_content_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_queue (workspace_id, kind, source_id) VALUES (NEW.workspace_id, 'content', NEW.id)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END;
$$;
CREATE TRIGGER graph_queue_content_added AFTER INSERT ON contents
  FOR EACH ROW WHEN (NEW.status IN ('finalized', 'published'))
  EXECUTE FUNCTION graph_queue_content_added();

-- Queued where the graph shows it (a document to drop) and where it now belongs (a version to take in).
CREATE FUNCTION graph_queue_content_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_queue (workspace_id, kind, source_id)
  SELECT d.workspace_id, 'content', NEW.id FROM graph_documents AS d WHERE d.content_id = NEW.id
  ON CONFLICT DO NOTHING;
  INSERT INTO graph_queue (workspace_id, kind, source_id)
  SELECT NEW.workspace_id, 'content', NEW.id WHERE NEW.status IN ('finalized', 'published')
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END;
$$;
CREATE TRIGGER graph_queue_content_changed AFTER UPDATE OF status, version_count, workspace_id ON contents
  FOR EACH ROW WHEN ((OLD.status IN ('finalized', 'published')) <> (NEW.status IN ('finalized', 'published'))
    OR OLD.version_count <> NEW.version_count OR OLD.workspace_id <> NEW.workspace_id)
  EXECUTE FUNCTION graph_queue_content_changed();

CREATE FUNCTION graph_queue_content_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM graph_queue WHERE kind = 'content' AND source_id = OLD.id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER graph_queue_content_removed AFTER DELETE ON contents
  FOR EACH ROW EXECUTE FUNCTION graph_queue_content_removed();

CREATE FUNCTION graph_queue_workspace_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM graph_queue WHERE workspace_id = OLD.id;
  DELETE FROM graph_pending WHERE workspace_id = OLD.id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER graph_queue_workspace_removed AFTER DELETE ON workspaces
  FOR EACH ROW EXECUTE FUNCTION graph_queue_workspace_removed();
