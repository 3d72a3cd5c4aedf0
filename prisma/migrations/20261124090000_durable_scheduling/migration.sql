-- Durable scheduling (docs/events.md, "Durable scheduling"): every pending webhook delivery and mail
-- carries its next attempt time and its lease in PostgreSQL (nothing of the schedule lives in Redis).

-- Webhook deliveries: the hand-over mark becomes the schedule.
ALTER TABLE "WebhookDelivery"
    ADD COLUMN "nextAttemptAt" TIMESTAMPTZ(3) DEFAULT CURRENT_TIMESTAMP,
    ADD COLUMN "leaseUntil" TIMESTAMPTZ(3),
    ADD COLUMN "retriesFrom" INTEGER NOT NULL DEFAULT 0;

-- Deliveries still pending were in BullMQ (or about to be): they are due now (the new column's default),
-- and the three-hour rule applies at their attempt or at the sweep. Finished ones have no next attempt.
UPDATE "WebhookDelivery" SET "nextAttemptAt" = NULL WHERE status <> 'pending';

-- DropIndex
DROP INDEX "WebhookDelivery_awaiting_handover_idx";

ALTER TABLE "WebhookDelivery" DROP COLUMN "enqueuedAt";

-- CreateIndex
CREATE INDEX "WebhookDelivery_due_idx" ON "WebhookDelivery"("nextAttemptAt") WHERE ("nextAttemptAt" IS NOT NULL);

-- A pending delivery always has a next attempt time, and a finished one never has.
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_schedule_check"
    CHECK ((status = 'pending') = ("nextAttemptAt" IS NOT NULL));

-- Mail: the same schedule. Mail handed to BullMQ before this migration cannot be told sent or not (BullMQ
-- held that): it counts as sent. Let the old worker drain the mail queue before upgrading.
-- CreateEnum
CREATE TYPE "MailStatus" AS ENUM ('pending', 'sent', 'failed');

ALTER TABLE "MailOutbox"
    ADD COLUMN "status" "MailStatus" NOT NULL DEFAULT 'pending',
    ADD COLUMN "attempts" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "nextAttemptAt" TIMESTAMPTZ(3) DEFAULT CURRENT_TIMESTAMP,
    ADD COLUMN "leaseUntil" TIMESTAMPTZ(3),
    ADD COLUMN "lastError" TEXT,
    ADD COLUMN "sentAt" TIMESTAMPTZ(3);

UPDATE "MailOutbox" SET status = 'sent', "nextAttemptAt" = NULL, "sentAt" = "enqueuedAt" WHERE "enqueuedAt" IS NOT NULL;

-- DropIndex
DROP INDEX "MailOutbox_enqueuedAt_id_idx";

ALTER TABLE "MailOutbox" DROP COLUMN "enqueuedAt";

-- CreateIndex
CREATE INDEX "MailOutbox_due_idx" ON "MailOutbox"("nextAttemptAt") WHERE ("nextAttemptAt" IS NOT NULL);

ALTER TABLE "MailOutbox" ADD CONSTRAINT "MailOutbox_schedule_check"
    CHECK ((status = 'pending') = ("nextAttemptAt" IS NOT NULL));
