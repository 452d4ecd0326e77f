-- A content's current text is stored once. Generation and finalization each write their text into a new version
-- (content_versions.text) and, until now, the same 30 KB again into the content's row: twice in the WAL and twice
-- more when checkpointed, and twice in the database file for good. With text_version set, the row's `content` is
-- empty and its text is that version's; NULL keeps the text in `content` (drafts, edits, rows written before).
-- (PostgreSQL; rules in README.md.)
ALTER TABLE contents ADD COLUMN text_version BIGINT;
