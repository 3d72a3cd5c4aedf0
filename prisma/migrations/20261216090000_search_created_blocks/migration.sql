-- The createdAt bounds of each block of 1,024 ordinals of a company's docs (search/terms.ts CREATED_BLOCK;
-- #29, docs/work-order-search.md "The page"): a deep page by createdAt under a filter counts the matches of
-- the blocks before it by their bits instead of walking their docs. Filled from the docs already indexed;
-- the indexer widens them from the next, generated migration on.
CREATE TABLE "WorkOrderSearchCreatedBlock" (
    "buyerCompanyId" INTEGER NOT NULL,
    "block" INTEGER NOT NULL,
    "minCreatedAt" TIMESTAMPTZ(3) NOT NULL,
    "maxCreatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "WorkOrderSearchCreatedBlock_pkey" PRIMARY KEY ("buyerCompanyId","block")
);

INSERT INTO "WorkOrderSearchCreatedBlock" ("buyerCompanyId", block, "minCreatedAt", "maxCreatedAt")
SELECT "buyerCompanyId", ordinal / 1024, min("createdAt"), max("createdAt") FROM "WorkOrderSearchDoc" GROUP BY 1, 2;
