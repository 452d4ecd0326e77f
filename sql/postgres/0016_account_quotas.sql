-- An account's own quotas in place of its plan's (domain/plans.ts effectiveQuotas): how many API keys may be
-- active at once, and how many bytes its records may hold. NULL: the plan's. (PostgreSQL; rules in README.md.)
ALTER TABLE accounts ADD COLUMN max_active_keys BIGINT CHECK (max_active_keys > 0);
ALTER TABLE accounts ADD COLUMN storage_bytes BIGINT CHECK (storage_bytes > 0);
