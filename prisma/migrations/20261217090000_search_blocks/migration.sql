-- The blocks of 1,024 ordinals of a company's docs (search/terms.ts ORDINAL_BLOCK; #29, docs/work-order-search.md
-- "The page") keep their workOrderId bounds beside their createdAt bounds: a deep page by woPriority starts in
-- the run it lands in at a block's first id instead of walking the run from its start. The table is renamed
-- for what it now holds; the bounds are filled from the docs already indexed, and the indexer widens them from
-- the next, generated migration on.
ALTER TABLE "WorkOrderSearchCreatedBlock" RENAME TO "WorkOrderSearchBlock";
ALTER TABLE "WorkOrderSearchBlock" RENAME CONSTRAINT "WorkOrderSearchCreatedBlock_pkey" TO "WorkOrderSearchBlock_pkey";
ALTER TABLE "WorkOrderSearchBlock" ADD COLUMN "minWorkOrderId" INTEGER, ADD COLUMN "maxWorkOrderId" INTEGER;

UPDATE "WorkOrderSearchBlock" b SET "minWorkOrderId" = x.low, "maxWorkOrderId" = x.high
  FROM (SELECT "buyerCompanyId", ordinal / 1024 AS block, min("workOrderId") AS low, max("workOrderId") AS high
          FROM "WorkOrderSearchDoc" GROUP BY 1, 2) x
 WHERE b."buyerCompanyId" = x."buyerCompanyId" AND b.block = x.block;
-- A block without docs any more (all deleted) keeps bounds that hold nothing.
UPDATE "WorkOrderSearchBlock" SET "minWorkOrderId" = 0, "maxWorkOrderId" = 0 WHERE "minWorkOrderId" IS NULL;

ALTER TABLE "WorkOrderSearchBlock" ALTER COLUMN "minWorkOrderId" SET NOT NULL, ALTER COLUMN "maxWorkOrderId" SET NOT NULL;
