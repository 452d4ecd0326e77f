-- Learning analyses used per account and month: a counter of its own, so that deleting content (and, with it,
-- its learning jobs) does not give quota back. (PostgreSQL; rules in README.md.)
CREATE TABLE analysis_quota_used (
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  month TEXT COLLATE "C" NOT NULL,
  used BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, month)
);

INSERT INTO analysis_quota_used (account_id, month, used)
  SELECT account_id, substr(created_at, 1, 7), count(*) FROM learning_jobs GROUP BY account_id, substr(created_at, 1, 7);
