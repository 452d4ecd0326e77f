-- A workspace's knowledge graph changes only when a source document is added or removed (graph_documents: its
-- mentions and pairs are inserted with it and leave with it). Each such change counts up the workspace's version, so
-- that a graph read can be answered again, from memory, while the version it was computed at is current: a read of
-- a dense workspace costs up to seconds of a pool thread. No row: version 0.
CREATE TABLE graph_versions (
  workspace_id TEXT PRIMARY KEY,
  version INTEGER NOT NULL
) WITHOUT ROWID;

-- Two statements that cannot fail rather than an upsert: SQLite keeps a statement journal of a cascade's deletes
-- for a trigger statement that might abort, which spilled to a temporary file and made a source's replacement on the
-- writer thread 35-45% slower.
CREATE TRIGGER graph_documents_added AFTER INSERT ON graph_documents BEGIN
  INSERT OR IGNORE INTO graph_versions (workspace_id, version) VALUES (NEW.workspace_id, 0);
  UPDATE OR IGNORE graph_versions SET version = version + 1 WHERE workspace_id = NEW.workspace_id;
END;
CREATE TRIGGER graph_documents_removed AFTER DELETE ON graph_documents BEGIN
  INSERT OR IGNORE INTO graph_versions (workspace_id, version) VALUES (OLD.workspace_id, 0);
  UPDATE OR IGNORE graph_versions SET version = version + 1 WHERE workspace_id = OLD.workspace_id;
END;
