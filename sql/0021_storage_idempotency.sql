-- The answers kept for Idempotency-Key replays (http/idempotency.ts) count against the account's storage quota, as
-- its records do: the bytes of a kept body, from its store until the purge deletes it (24 h). An answer that does not
-- fit is kept without its body (domain/writer.ts idempotencySave). Its store is an upsert, which fires the UPDATE
-- trigger where INSERT OR REPLACE would delete the row it replaces without the DELETE trigger (recursive triggers are
-- off). Every account is counted again after migrating (db/storage.ts STORAGE_SIZES), with the answers kept now.
CREATE TRIGGER storage_idempotency_insert AFTER INSERT ON idempotency_keys BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes + octet_length(NEW.body) WHERE account_id = NEW.account_id;
END;
CREATE TRIGGER storage_idempotency_update AFTER UPDATE OF body ON idempotency_keys BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes + octet_length(NEW.body) - octet_length(OLD.body)
    WHERE account_id = NEW.account_id;
END;
CREATE TRIGGER storage_idempotency_delete AFTER DELETE ON idempotency_keys BEGIN
  UPDATE storage_usage SET used_bytes = used_bytes - octet_length(OLD.body) WHERE account_id = OLD.account_id;
END;
UPDATE storage_usage SET used_bytes = NULL;
