-- PostgreSQL: the same index as SQLite's, for the same reads (rules in README.md).
-- The knowledge graph's catch-up asks which finalized and published contents of a workspace it has not taken in,
-- and which of its documents are of contents that left those statuses or moved on to another version. Both read
-- only a content's workspace, status and version, which the table row keeps after its two texts: without this
-- index each look followed the overflow pages of every content of the workspace, so that one catch-up held the
-- HTTP thread for tens of milliseconds in a workspace of a few thousand long contents.
CREATE INDEX contents_graph ON contents(workspace_id, status, version_count);
