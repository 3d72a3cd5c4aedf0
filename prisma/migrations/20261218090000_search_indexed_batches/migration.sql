-- The indexer's recent batches (docs/work-order-search.md "The indexer"; #29 item 2): per batch and
-- company, the ordinals of the docs it indexed. A bitmap build reads its work orders before it takes the
-- indexer's lock (seconds from disk at 1M work orders) and, under the lock, reads again only the docs of
-- the batches committed since that first read, instead of all of them (in a cold database's first write
-- phase that second read from disk held the indexer up for 1.4 and 2.0 s). The indexer keeps the last
-- 1,000 rows; a build whose batches were pruned reads everything again. The first row is the mark a build
-- reads when nothing was indexed yet.
CREATE TABLE "WorkOrderSearchIndexed" (
    "id" BIGSERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "ordinals" INTEGER[] NOT NULL,

    CONSTRAINT "WorkOrderSearchIndexed_pkey" PRIMARY KEY ("id")
);
INSERT INTO "WorkOrderSearchIndexed" ("buyerCompanyId", ordinals) VALUES (0, '{}');
