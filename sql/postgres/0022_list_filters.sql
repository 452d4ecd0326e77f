-- PostgreSQL: the same statements as SQLite's, for the same reads (rules in README.md).
-- Every filter of a list is served by an index (test/db/list-plans.test.ts checks each plan). A contents page
-- selects its ids from one covering index (db/contents.ts listIndex), then reads only the page's rows: a filter
-- never reads a row to test it, where status and planned day lie past the row's two texts.

-- In id order, with the columns overdue=false and a day range's walk in id order test.
DROP INDEX contents_workspace;
CREATE INDEX contents_workspace ON contents(workspace_id, id, status, scheduled_publish_day);
-- A status in id order, with the day: a page of a rare status reads that status's entries only.
CREATE INDEX contents_status ON contents(workspace_id, status, id, scheduled_publish_day);
-- A planned-day range, with the status that a status filter and overdue=false test.
DROP INDEX contents_planned;
CREATE INDEX contents_planned ON contents(workspace_id, scheduled_publish_day, status);
-- Overdue candidates only (planned, not published): overdue=true reads its matches, not every past-planned content.
CREATE INDEX contents_overdue ON contents(workspace_id, scheduled_publish_day, status)
  WHERE status != 'published' AND scheduled_publish_day IS NOT NULL;

-- A memory kind in id order.
CREATE INDEX memories_kind ON memories(workspace_id, kind, id);
-- An image source, newest first.
CREATE INDEX images_source ON images(account_id, source, id);
-- An account's workspaces in id order, the cursor's: workspaces_account holds them in rowid order.
CREATE INDEX workspaces_page ON workspaces(account_id, id);
