-- A workspace's knowledge graph changes only when a source document is added or removed (graph_documents: its
-- mentions and pairs are inserted with it and leave with it). Each such change counts up the workspace's version, so
-- that a graph read can be answered again, from memory, while the version it was computed at is current: a read of
-- a dense workspace costs up to seconds of a pool thread. No row: version 0.
CREATE TABLE graph_versions (
  workspace_id TEXT PRIMARY KEY,
  version INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER graph_documents_added AFTER INSERT ON graph_documents BEGIN
  INSERT INTO graph_versions (workspace_id, version) VALUES (NEW.workspace_id, 1)
    ON CONFLICT(workspace_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER graph_documents_removed AFTER DELETE ON graph_documents BEGIN
  INSERT INTO graph_versions (workspace_id, version) VALUES (OLD.workspace_id, 1)
    ON CONFLICT(workspace_id) DO UPDATE SET version = version + 1;
END;
