-- DropIndex
DROP INDEX "OutboxEvent_relayedAt_id_idx";

-- DropIndex
DROP INDEX "WebhookDelivery_endpointId_createdAt_idx";

-- DropIndex
DROP INDEX "WebhookDelivery_eventId_endpointId_sequence_key";

-- DropIndex
DROP INDEX "WebhookDelivery_status_createdAt_idx";

-- DropIndex
DROP INDEX "WebhookDelivery_status_enqueuedAt_idx";

-- CreateIndex
CREATE INDEX "OutboxEvent_unrelayed_idx" ON "OutboxEvent"("id") WHERE ("relayedAt" IS NULL);

-- CreateIndex
CREATE INDEX "WebhookDelivery_endpointId_eventAt_idx" ON "WebhookDelivery"("endpointId", "eventAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_awaiting_handover_idx" ON "WebhookDelivery"("id") WHERE ("enqueuedAt" IS NULL);

-- Room on each page for the attempt record's update to stay on the page (a HOT update: no index
-- entries written, since no index covers the columns it changes). Prisma does not model storage
-- parameters, so this lives only here.
ALTER TABLE "WebhookDelivery" SET (fillfactor = 80);
