-- The live event stream (docs/events.md, "Subscriptions"): the relay numbers every message it sends
-- (one sequence, in commit order, without gaps) and records what a replay needs to compute the same
-- messages again: the company's visibility-webhooks setting at relay time and the suppliers addressed.
-- Rows relayed before this migration have no number and are not replayed.
ALTER TABLE "OutboxEvent"
  ADD COLUMN "seq" BIGINT,
  ADD COLUMN "visibilityWebhooks" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "supplierFacilityIds" INTEGER[] DEFAULT ARRAY[]::INTEGER[];

CREATE UNIQUE INDEX "OutboxEvent_seq_key" ON "OutboxEvent"("seq");
CREATE INDEX "OutboxEvent_buyerCompanyId_seq_idx" ON "OutboxEvent"("buyerCompanyId", "seq");
CREATE INDEX "OutboxEvent_supplierFacilityIds_idx" ON "OutboxEvent" USING GIN ("supplierFacilityIds");
