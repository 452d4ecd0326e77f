-- Failed sign-ins per email and per client address (domain/sign-in-backoff.ts): on disk, so that a restart does not
-- reset an attacker's backoff and the command line (`users clear-backoff`) can see and clear it.
-- subject: 'email:<address, NFC, lower case>' or 'addr:<client address>'; times in milliseconds since the epoch.
-- (PostgreSQL; rules in README.md.)
CREATE TABLE sign_in_backoff (
  subject TEXT COLLATE "C" PRIMARY KEY,
  failures BIGINT NOT NULL CHECK (failures > 0),
  last_failure_ms BIGINT NOT NULL,
  blocked_until_ms BIGINT NOT NULL
);
