-- work_order_search_materialize ran a bitmap build's read and its build in one transaction; the worker
-- runs them as two (work_order_search_read_requested, work_order_search_build_read, migration
-- 20261218090002), since the one-transaction form could deadlock with a rebuild or a migration that holds
-- the indexer's lock. Nothing calls it any more.
DROP FUNCTION work_order_search_materialize(int);
