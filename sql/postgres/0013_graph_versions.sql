-- A workspace's knowledge graph changes only when a source document is added or removed (graph_documents: its
-- mentions and pairs are inserted with it and leave with it). Each such change counts up the workspace's version, so
-- that a graph read can be answered again, from memory, while the version it was computed at is current: a read of
-- a dense workspace costs up to seconds of a pool thread. No row: version 0. (PostgreSQL; rules in README.md.)
CREATE TABLE graph_versions (
  workspace_id TEXT COLLATE "C" PRIMARY KEY,
  version BIGINT NOT NULL
);

-- One upsert where SQLite's triggers run an INSERT OR IGNORE of version 0 and an UPDATE of version + 1 (its reason,
-- SQLite's statement journal, is not PostgreSQL's): the same row either way.
CREATE FUNCTION graph_documents_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_versions (workspace_id, version) VALUES (NEW.workspace_id, 1)
  ON CONFLICT (workspace_id) DO UPDATE SET version = graph_versions.version + 1;
  RETURN NULL;
END;
$$;
CREATE TRIGGER graph_documents_added AFTER INSERT ON graph_documents
  FOR EACH ROW EXECUTE FUNCTION graph_documents_added();

CREATE FUNCTION graph_documents_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_versions (workspace_id, version) VALUES (OLD.workspace_id, 1)
  ON CONFLICT (workspace_id) DO UPDATE SET version = graph_versions.version + 1;
  RETURN NULL;
END;
$$;
CREATE TRIGGER graph_documents_removed AFTER DELETE ON graph_documents
  FOR EACH ROW EXECUTE FUNCTION graph_documents_removed();
