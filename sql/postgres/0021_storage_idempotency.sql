-- The answers kept for Idempotency-Key replays (http/idempotency.ts) count against the account's storage quota, as
-- its records do: the bytes of a kept body, from its store until the purge deletes it (24 h). An answer that does not
-- fit is kept without its body (domain/writer.ts idempotencySave). Its store is an upsert, which fires the UPDATE
-- trigger where INSERT OR REPLACE would delete the row it replaces without the DELETE trigger (recursive triggers are
-- off). Every account is counted again after migrating (db/storage.ts STORAGE_SIZES), with the answers kept now.
-- (PostgreSQL; rules in README.md.)
CREATE FUNCTION storage_idempotency_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes + octet_length(NEW.body) WHERE account_id = NEW.account_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_idempotency_insert AFTER INSERT ON idempotency_keys
  FOR EACH ROW EXECUTE FUNCTION storage_idempotency_insert();

CREATE FUNCTION storage_idempotency_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes + octet_length(NEW.body) - octet_length(OLD.body)
    WHERE account_id = NEW.account_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_idempotency_update AFTER UPDATE OF body ON idempotency_keys
  FOR EACH ROW EXECUTE FUNCTION storage_idempotency_update();

CREATE FUNCTION storage_idempotency_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes - octet_length(OLD.body) WHERE account_id = OLD.account_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER storage_idempotency_delete AFTER DELETE ON idempotency_keys
  FOR EACH ROW EXECUTE FUNCTION storage_idempotency_delete();

UPDATE storage_usage SET used_bytes = NULL;
