-- Entity ids are at most 200 bytes (src/domain/graph.ts MAX_ENTITY_ID_BYTES): an entity search's cursor carries the
-- id of its page's last entity. Ids extracted before the limit (a "name" made of a URL or a hash) go, with their
-- pairs; the rest of each document stays as extracted.
DELETE FROM graph_pairs WHERE length(CAST(source AS BLOB)) > 200 OR length(CAST(target AS BLOB)) > 200;
DELETE FROM graph_mentions WHERE length(CAST(entity AS BLOB)) > 200;
