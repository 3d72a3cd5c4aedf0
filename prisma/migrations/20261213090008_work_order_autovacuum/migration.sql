-- Dashboards' charts, count_by over a date window and the bitmap path's page walks are index-only scans
-- (WorkOrder_stats_idx and the others), which skip the table only for pages the visibility map marks
-- all-visible. Every note, status change and assignment updates a work order and clears its page's
-- mark until VACUUM runs; at PostgreSQL's default (a fifth of the table changed) that is 400,000 changes
-- at 2,000,000 work orders, so scans gathered heap fetches for weeks: at 51,587 changed rows the
-- supplier x week chart read 63,000 heap pages, p95 93.9 ms against 44.8 ms after a VACUUM
-- (docs/performance.md, "Dashboards"). Vacuumed after 1% instead (20,000 changes here); such a VACUUM
-- visits only the pages not marked all-visible.
ALTER TABLE "WorkOrder" SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01);
