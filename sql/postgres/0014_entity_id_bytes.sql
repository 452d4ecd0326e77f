-- Entity ids are at most 200 bytes (src/domain/graph.ts MAX_ENTITY_ID_BYTES): an entity search's cursor carries the
-- id of its page's last entity. Ids extracted before the limit (a "name" made of a URL or a hash) go, with their
-- pairs; the rest of each document stays as extracted. (PostgreSQL; rules in README.md: octet_length is SQLite's
-- length(CAST(x AS BLOB)), the UTF-8 bytes.)
DELETE FROM graph_pairs WHERE octet_length(source) > 200 OR octet_length(target) > 200;
DELETE FROM graph_mentions WHERE octet_length(entity) > 200;
