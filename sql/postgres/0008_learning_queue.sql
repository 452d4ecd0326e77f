-- PostgreSQL: the same index as SQLite's, for the same reads (rules in README.md).
-- The learning queue is read oldest first: without this index each look at the queue sorted every queued job,
-- and carried each job's input (both texts) through the sort, so that a backlog of thousands cost the HTTP thread
-- tens of milliseconds per look.
CREATE INDEX learning_jobs_queue ON learning_jobs(status, created_at, id);
