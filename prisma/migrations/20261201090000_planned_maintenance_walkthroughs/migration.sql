-- CreateEnum
CREATE TYPE "PmScheduling" AS ENUM ('external', 'built_in');

-- CreateEnum
CREATE TYPE "RunLogStatus" AS ENUM ('success', 'failed', 'skipped');

-- DropForeignKey
ALTER TABLE "WalkthroughAnswer" DROP CONSTRAINT "WalkthroughAnswer_walkthroughId_fkey";

-- DropIndex
DROP INDEX "Walkthrough_locationId_idx";

-- DropIndex
DROP INDEX "PlannedMaintenanceSchedule_buyerCompanyId_idx";

-- AlterTable
ALTER TABLE "BuyerCompany" ADD COLUMN     "pmScheduling" "PmScheduling" NOT NULL DEFAULT 'external';

-- AlterTable
ALTER TABLE "Location" ADD COLUMN     "brandId" INTEGER,
ADD COLUMN     "timeZone" TEXT NOT NULL DEFAULT 'UTC';

-- AlterTable
ALTER TABLE "Walkthrough" ADD COLUMN     "notes" TEXT,
ADD COLUMN     "photos" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "WalkthroughAnswer" ADD COLUMN     "photos" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "PlannedMaintenanceSchedule" ADD COLUMN     "anchorAt" TIMESTAMPTZ(3),
ADD COLUMN     "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "description" TEXT,
ADD COLUMN     "endsAt" TIMESTAMPTZ(3),
ADD COLUMN     "isActive" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "lastRunAt" TIMESTAMPTZ(3),
ADD COLUMN     "lastRunDueAt" TIMESTAMPTZ(3),
ADD COLUMN     "lastRunStatus" "RunLogStatus",
ADD COLUMN     "needApproval" BOOLEAN,
ADD COLUMN     "sequence" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "woPriority" INTEGER,
ALTER COLUMN "nextRunAt" DROP NOT NULL;

-- Existing schedules start their series at their next run, and updatedAt has no database default.
UPDATE "PlannedMaintenanceSchedule" SET "anchorAt" = "nextRunAt";
ALTER TABLE "PlannedMaintenanceSchedule" ALTER COLUMN "anchorAt" SET NOT NULL, ALTER COLUMN "updatedAt" DROP DEFAULT;

-- CreateTable
CREATE TABLE "WalkthroughIssue" (
    "id" SERIAL NOT NULL,
    "walkthroughId" INTEGER NOT NULL,
    "taskId" INTEGER,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "severity" TEXT,
    "photos" TEXT[] DEFAULT ARRAY[]::TEXT[],

    CONSTRAINT "WalkthroughIssue_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SchedulerRunLog" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "scheduleId" INTEGER NOT NULL,
    "status" "RunLogStatus" NOT NULL,
    "lastRunAt" TIMESTAMPTZ(3) NOT NULL,
    "lastRunDueAt" TIMESTAMPTZ(3) NOT NULL,
    "woId" INTEGER,
    "log" TEXT,
    "source" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SchedulerRunLog_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WalkthroughIssue_walkthroughId_idx" ON "WalkthroughIssue"("walkthroughId");

-- CreateIndex
CREATE INDEX "SchedulerRunLog_scheduleId_id_idx" ON "SchedulerRunLog"("scheduleId", "id");

-- CreateIndex
CREATE INDEX "SchedulerRunLog_buyerCompanyId_id_idx" ON "SchedulerRunLog"("buyerCompanyId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "SchedulerRunLog_one_success_per_due" ON "SchedulerRunLog"("scheduleId", "lastRunDueAt") WHERE (status = 'success');

-- CreateIndex
CREATE INDEX "Walkthrough_locationId_completedAt_idx" ON "Walkthrough"("locationId", "completedAt");

-- CreateIndex
CREATE INDEX "Walkthrough_surveyId_idx" ON "Walkthrough"("surveyId");

-- CreateIndex
CREATE INDEX "PlannedMaintenanceSchedule_buyerCompanyId_id_idx" ON "PlannedMaintenanceSchedule"("buyerCompanyId", "id");

-- CreateIndex
CREATE INDEX "PlannedMaintenanceSchedule_due_idx" ON "PlannedMaintenanceSchedule"("nextRunAt") WHERE ("isActive" AND "nextRunAt" IS NOT NULL);

-- AddForeignKey
ALTER TABLE "WalkthroughAnswer" ADD CONSTRAINT "WalkthroughAnswer_walkthroughId_fkey" FOREIGN KEY ("walkthroughId") REFERENCES "Walkthrough"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WalkthroughIssue" ADD CONSTRAINT "WalkthroughIssue_walkthroughId_fkey" FOREIGN KEY ("walkthroughId") REFERENCES "Walkthrough"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WalkthroughIssue" ADD CONSTRAINT "WalkthroughIssue_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "SiteSurveyTask"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SchedulerRunLog" ADD CONSTRAINT "SchedulerRunLog_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SchedulerRunLog" ADD CONSTRAINT "SchedulerRunLog_scheduleId_fkey" FOREIGN KEY ("scheduleId") REFERENCES "PlannedMaintenanceSchedule"("id") ON DELETE RESTRICT ON UPDATE CASCADE;


