-- The knowledge graph's per-document rows (sql/0005_insights.sql) summed per workspace, kept by triggers, so that a
-- read picks its nodes and edges from these sums through an index instead of summing every document's rows. With
-- tens of dense references the sums over graph_pairs alone took hundreds of milliseconds to seconds a read.
-- A row goes when the last document row it sums goes (every mention and weight is positive).

-- An entity of a workspace: its mentions over all documents, and how many of its document rows are proper nouns
-- (the node is a proper noun when any is).
CREATE TABLE graph_entity_totals (
  workspace_id TEXT NOT NULL,
  entity TEXT NOT NULL,
  mentions INTEGER NOT NULL CHECK (mentions >= 0),
  proper_count INTEGER NOT NULL CHECK (proper_count >= 0),
  type TEXT GENERATED ALWAYS AS (CASE WHEN proper_count > 0 THEN 'proper_noun' ELSE 'key_phrase' END) VIRTUAL,
  PRIMARY KEY (workspace_id, entity)
) WITHOUT ROWID;
-- The most mentioned first, ties by id: the order of the graph's nodes, of all types or of one.
CREATE INDEX graph_entity_totals_rank ON graph_entity_totals(workspace_id, mentions DESC, entity);
CREATE INDEX graph_entity_totals_type_rank ON graph_entity_totals(workspace_id, type, mentions DESC, entity);

-- The distinct lower-case labels of each entity, with how many document rows carry each: a label search reads
-- these, not every document's mention rows.
CREATE TABLE graph_label_totals (
  workspace_id TEXT NOT NULL,
  entity TEXT NOT NULL,
  search TEXT NOT NULL,
  rows INTEGER NOT NULL CHECK (rows >= 0),
  PRIMARY KEY (workspace_id, entity, search)
) WITHOUT ROWID;

-- An edge of a workspace: the sentences two entities share over all documents; source < target. An entity's edges
-- are found from either end (the key, and the index); they carry no index on weight, which every document row
-- added or removed would move (that doubled the cost of saving a dense document).
CREATE TABLE graph_edge_totals (
  workspace_id TEXT NOT NULL,
  source TEXT NOT NULL,
  target TEXT NOT NULL,
  weight INTEGER NOT NULL CHECK (weight >= 0),
  PRIMARY KEY (workspace_id, source, target)
) WITHOUT ROWID;
CREATE INDEX graph_edge_totals_target ON graph_edge_totals(workspace_id, target, source);

-- Only the former reads, which summed every document's pairs, used these: dropping them pays back part of what the
-- triggers below add to saving and deleting a document (two index entries fewer a pair).
DROP INDEX graph_pairs_source;
DROP INDEX graph_pairs_target;

INSERT INTO graph_entity_totals (workspace_id, entity, mentions, proper_count)
  SELECT workspace_id, entity, sum(mentions), sum(type = 'proper_noun') FROM graph_mentions
  GROUP BY workspace_id, entity;
INSERT INTO graph_label_totals (workspace_id, entity, search, rows)
  SELECT workspace_id, entity, search, count(*) FROM graph_mentions GROUP BY workspace_id, entity, search;
INSERT INTO graph_edge_totals (workspace_id, source, target, weight)
  SELECT workspace_id, source, target, sum(weight) FROM graph_pairs GROUP BY workspace_id, source, target;

-- Document rows are only inserted and deleted (a new extraction replaces its document; the cascades from a
-- deleted source, workspace or account fire these too); an update is taken as a delete and an insert.
CREATE TRIGGER graph_mentions_added AFTER INSERT ON graph_mentions BEGIN
  INSERT INTO graph_entity_totals (workspace_id, entity, mentions, proper_count)
    VALUES (new.workspace_id, new.entity, new.mentions, new.type = 'proper_noun')
    ON CONFLICT (workspace_id, entity) DO UPDATE
      SET mentions = mentions + excluded.mentions, proper_count = proper_count + excluded.proper_count;
  INSERT INTO graph_label_totals (workspace_id, entity, search, rows) VALUES (new.workspace_id, new.entity, new.search, 1)
    ON CONFLICT (workspace_id, entity, search) DO UPDATE SET rows = rows + 1;
END;

CREATE TRIGGER graph_mentions_removed AFTER DELETE ON graph_mentions BEGIN
  UPDATE graph_entity_totals
    SET mentions = mentions - old.mentions, proper_count = proper_count - (old.type = 'proper_noun')
    WHERE workspace_id = old.workspace_id AND entity = old.entity;
  DELETE FROM graph_entity_totals WHERE workspace_id = old.workspace_id AND entity = old.entity AND mentions = 0;
  UPDATE graph_label_totals SET rows = rows - 1
    WHERE workspace_id = old.workspace_id AND entity = old.entity AND search = old.search;
  DELETE FROM graph_label_totals
    WHERE workspace_id = old.workspace_id AND entity = old.entity AND search = old.search AND rows = 0;
END;

CREATE TRIGGER graph_mentions_changed AFTER UPDATE ON graph_mentions BEGIN
  UPDATE graph_entity_totals
    SET mentions = mentions - old.mentions, proper_count = proper_count - (old.type = 'proper_noun')
    WHERE workspace_id = old.workspace_id AND entity = old.entity;
  DELETE FROM graph_entity_totals WHERE workspace_id = old.workspace_id AND entity = old.entity AND mentions = 0;
  UPDATE graph_label_totals SET rows = rows - 1
    WHERE workspace_id = old.workspace_id AND entity = old.entity AND search = old.search;
  DELETE FROM graph_label_totals
    WHERE workspace_id = old.workspace_id AND entity = old.entity AND search = old.search AND rows = 0;
  INSERT INTO graph_entity_totals (workspace_id, entity, mentions, proper_count)
    VALUES (new.workspace_id, new.entity, new.mentions, new.type = 'proper_noun')
    ON CONFLICT (workspace_id, entity) DO UPDATE
      SET mentions = mentions + excluded.mentions, proper_count = proper_count + excluded.proper_count;
  INSERT INTO graph_label_totals (workspace_id, entity, search, rows) VALUES (new.workspace_id, new.entity, new.search, 1)
    ON CONFLICT (workspace_id, entity, search) DO UPDATE SET rows = rows + 1;
END;

CREATE TRIGGER graph_pairs_added AFTER INSERT ON graph_pairs BEGIN
  INSERT INTO graph_edge_totals (workspace_id, source, target, weight)
    VALUES (new.workspace_id, new.source, new.target, new.weight)
    ON CONFLICT (workspace_id, source, target) DO UPDATE SET weight = weight + excluded.weight;
END;

CREATE TRIGGER graph_pairs_removed AFTER DELETE ON graph_pairs BEGIN
  UPDATE graph_edge_totals SET weight = weight - old.weight
    WHERE workspace_id = old.workspace_id AND source = old.source AND target = old.target;
  DELETE FROM graph_edge_totals
    WHERE workspace_id = old.workspace_id AND source = old.source AND target = old.target AND weight = 0;
END;

CREATE TRIGGER graph_pairs_changed AFTER UPDATE ON graph_pairs BEGIN
  UPDATE graph_edge_totals SET weight = weight - old.weight
    WHERE workspace_id = old.workspace_id AND source = old.source AND target = old.target;
  DELETE FROM graph_edge_totals
    WHERE workspace_id = old.workspace_id AND source = old.source AND target = old.target AND weight = 0;
  INSERT INTO graph_edge_totals (workspace_id, source, target, weight)
    VALUES (new.workspace_id, new.source, new.target, new.weight)
    ON CONFLICT (workspace_id, source, target) DO UPDATE SET weight = weight + excluded.weight;
END;
