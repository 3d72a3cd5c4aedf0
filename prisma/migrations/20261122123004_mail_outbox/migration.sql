-- CreateTable
CREATE TABLE "MailOutbox" (
    "id" SERIAL NOT NULL,
    "jobId" TEXT NOT NULL,
    "message" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "enqueuedAt" TIMESTAMPTZ(3),

    CONSTRAINT "MailOutbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "MailOutbox_jobId_key" ON "MailOutbox"("jobId");

-- CreateIndex
CREATE INDEX "MailOutbox_enqueuedAt_id_idx" ON "MailOutbox"("enqueuedAt", "id");
