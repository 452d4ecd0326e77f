-- Bytes each account's records hold, kept as a counter for the storage quota (domain/storage.ts): the UTF-8 bytes
-- of the texts (contents and their versions, reference materials and their passages, conversions, memories) and
-- the images' bytes, what dominates a row's size. Triggers keep it in the writing transaction, so a crash cannot
-- part a write from its count. NULL: not counted yet; db/storage.ts recountUnknown counts it after migrating, with
-- the same sizes (STORAGE_SIZES there; test/db/storage.test.ts holds the two together).
-- A child row deleted by its parent's cascade finds its parent gone: the parent's BEFORE DELETE trigger gives its
-- children's bytes back instead. (PostgreSQL; rules in README.md: octet_length counts UTF-8 bytes in a UTF8
-- database, as SQLite's does; test/db/pg-schema.test.ts drives both engines' triggers alike.)
CREATE TABLE storage_usage (
  account_id BIGINT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  used_bytes BIGINT
);
INSERT INTO storage_usage (account_id, used_bytes) SELECT id, NULL FROM accounts;

CREATE FUNCTION storage_account_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO storage_usage (account_id, used_bytes) VALUES (NEW.id, 0);
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_account_insert AFTER INSERT ON accounts
  FOR EACH ROW EXECUTE FUNCTION storage_account_insert();

CREATE FUNCTION storage_contents_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes + octet_length(NEW.title) + octet_length(NEW.content)
    + coalesce(octet_length(NEW.finalized_content), 0) WHERE account_id = NEW.account_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_contents_insert AFTER INSERT ON contents
  FOR EACH ROW EXECUTE FUNCTION storage_contents_insert();

CREATE FUNCTION storage_contents_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes
    + octet_length(NEW.title) + octet_length(NEW.content) + coalesce(octet_length(NEW.finalized_content), 0)
    - octet_length(OLD.title) - octet_length(OLD.content) - coalesce(octet_length(OLD.finalized_content), 0)
    WHERE account_id = NEW.account_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_contents_update AFTER UPDATE OF title, content, finalized_content ON contents
  FOR EACH ROW EXECUTE FUNCTION storage_contents_update();

CREATE FUNCTION storage_contents_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes - octet_length(OLD.title) - octet_length(OLD.content)
    - coalesce(octet_length(OLD.finalized_content), 0)
    - (SELECT coalesce(sum(octet_length(title) + octet_length(text) + coalesce(octet_length(details), 0)), 0)
       FROM content_versions WHERE content_id = OLD.id)
    WHERE account_id = OLD.account_id;
  RETURN OLD;
END;
$$;
CREATE TRIGGER storage_contents_delete BEFORE DELETE ON contents
  FOR EACH ROW EXECUTE FUNCTION storage_contents_delete();

CREATE FUNCTION storage_versions_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes + octet_length(NEW.title) + octet_length(NEW.text)
    + coalesce(octet_length(NEW.details), 0)
    WHERE account_id = (SELECT account_id FROM contents WHERE id = NEW.content_id);
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_versions_insert AFTER INSERT ON content_versions
  FOR EACH ROW EXECUTE FUNCTION storage_versions_insert();

CREATE FUNCTION storage_versions_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes - octet_length(OLD.title) - octet_length(OLD.text)
    - coalesce(octet_length(OLD.details), 0)
    WHERE account_id = (SELECT account_id FROM contents WHERE id = OLD.content_id);
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_versions_delete AFTER DELETE ON content_versions
  FOR EACH ROW EXECUTE FUNCTION storage_versions_delete();

CREATE FUNCTION storage_references_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes + octet_length(NEW.title) + octet_length(NEW.content)
    WHERE account_id = NEW.account_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_references_insert AFTER INSERT ON reference_materials
  FOR EACH ROW EXECUTE FUNCTION storage_references_insert();

CREATE FUNCTION storage_references_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes - octet_length(OLD.title) - octet_length(OLD.content)
    - (SELECT coalesce(sum(octet_length(text)), 0) FROM reference_passages WHERE reference_id = OLD.id)
    WHERE account_id = OLD.account_id;
  RETURN OLD;
END;
$$;
CREATE TRIGGER storage_references_delete BEFORE DELETE ON reference_materials
  FOR EACH ROW EXECUTE FUNCTION storage_references_delete();

CREATE FUNCTION storage_passages_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes + octet_length(NEW.text)
    WHERE account_id = (SELECT account_id FROM reference_materials WHERE id = NEW.reference_id);
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_passages_insert AFTER INSERT ON reference_passages
  FOR EACH ROW EXECUTE FUNCTION storage_passages_insert();

CREATE FUNCTION storage_passages_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes - octet_length(OLD.text)
    WHERE account_id = (SELECT account_id FROM reference_materials WHERE id = OLD.reference_id);
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_passages_delete AFTER DELETE ON reference_passages
  FOR EACH ROW EXECUTE FUNCTION storage_passages_delete();

CREATE FUNCTION storage_images_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes + NEW.size_bytes WHERE account_id = NEW.account_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_images_insert AFTER INSERT ON images
  FOR EACH ROW EXECUTE FUNCTION storage_images_insert();

CREATE FUNCTION storage_images_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes - OLD.size_bytes WHERE account_id = OLD.account_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_images_delete AFTER DELETE ON images
  FOR EACH ROW EXECUTE FUNCTION storage_images_delete();

CREATE FUNCTION storage_conversions_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes + octet_length(NEW.output) + coalesce(octet_length(NEW.posts), 0)
    + coalesce(octet_length(NEW.subject), 0) WHERE account_id = NEW.account_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_conversions_insert AFTER INSERT ON conversions
  FOR EACH ROW EXECUTE FUNCTION storage_conversions_insert();

CREATE FUNCTION storage_conversions_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes - octet_length(OLD.output) - coalesce(octet_length(OLD.posts), 0)
    - coalesce(octet_length(OLD.subject), 0) WHERE account_id = OLD.account_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_conversions_delete AFTER DELETE ON conversions
  FOR EACH ROW EXECUTE FUNCTION storage_conversions_delete();

CREATE FUNCTION storage_memories_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes + octet_length(NEW.title) + octet_length(NEW.content)
    WHERE account_id = NEW.account_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_memories_insert AFTER INSERT ON memories
  FOR EACH ROW EXECUTE FUNCTION storage_memories_insert();

CREATE FUNCTION storage_memories_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes + octet_length(NEW.title) + octet_length(NEW.content)
    - octet_length(OLD.title) - octet_length(OLD.content) WHERE account_id = NEW.account_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_memories_update AFTER UPDATE OF title, content ON memories
  FOR EACH ROW EXECUTE FUNCTION storage_memories_update();

CREATE FUNCTION storage_memories_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes - octet_length(OLD.title) - octet_length(OLD.content)
    WHERE account_id = OLD.account_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_memories_delete AFTER DELETE ON memories
  FOR EACH ROW EXECUTE FUNCTION storage_memories_delete();
