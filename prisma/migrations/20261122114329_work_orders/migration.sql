-- CreateEnum
CREATE TYPE "WorkOrderStatus" AS ENUM ('Unassigned', 'PendingApproval', 'PendingConfirmationByServiceProvider', 'SupplierInitiatedPendingApproval', 'ConfirmedByServiceProvider', 'TechAssigned', 'TechScheduled', 'TechRescheduled', 'TechEnRoute', 'TechWaitingOnSite', 'TechWorkingOnSite', 'WorkIncompleteWithReason', 'WaitingForReview', 'WorkUnsatisfactory', 'WorkReviewedAndCompleted', 'CancelledWithReason', 'PaymentMade', 'Rejected');

-- CreateEnum
CREATE TYPE "NoteThread" AS ENUM ('root', 'contractor', 'internal');

-- CreateTable
CREATE TABLE "WorkOrder" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "buyerFacilityId" INTEGER NOT NULL,
    "locationId" INTEGER NOT NULL,
    "problemTypeId" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "status" "WorkOrderStatus" NOT NULL,
    "createdBy" TEXT NOT NULL,
    "supplierFacilityId" INTEGER,
    "supplierPrimaryContactEmail" TEXT,
    "assetId" INTEGER,
    "subAssetIds" INTEGER[],
    "needsApproval" BOOLEAN NOT NULL DEFAULT false,
    "isPM" BOOLEAN NOT NULL DEFAULT false,
    "plannedMaintenanceScheduleId" INTEGER,
    "walkThroughId" INTEGER,
    "siteSurveyTaskTitleId" INTEGER,
    "includeWalkthroughTaskList" BOOLEAN NOT NULL DEFAULT false,
    "parentWorkOrderId" INTEGER,
    "poNumber" TEXT,
    "nte" DECIMAL(12,2),
    "glCode" TEXT,
    "costCenter" TEXT,
    "internalNotes" TEXT,
    "approvedBy" TEXT,
    "approvedAt" TIMESTAMPTZ(3),
    "woPriority" INTEGER,
    "currencyId" TEXT,
    "locationCurrencyId" TEXT,
    "currencyExchangeRate" DECIMAL(18,8),
    "currencyExchangeRateAt" TIMESTAMPTZ(3),
    "statusChangedAt" TIMESTAMPTZ(3) NOT NULL,
    "assignedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "searchVector" tsvector,

    CONSTRAINT "WorkOrder_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WorkOrderStatusChange" (
    "id" SERIAL NOT NULL,
    "workOrderId" INTEGER NOT NULL,
    "from" "WorkOrderStatus",
    "to" "WorkOrderStatus" NOT NULL,
    "action" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "actorKind" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "WorkOrderStatusChange_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WorkOrderNote" (
    "id" SERIAL NOT NULL,
    "workOrderId" INTEGER NOT NULL,
    "thread" "NoteThread" NOT NULL DEFAULT 'root',
    "text" TEXT NOT NULL DEFAULT '',
    "noteAddedBy" TEXT NOT NULL,
    "noteAddedAt" TIMESTAMPTZ(3) NOT NULL,
    "photo" TEXT,
    "video" TEXT,
    "audio" TEXT,
    "otherFile" TEXT,
    "elements" JSONB NOT NULL DEFAULT '[]',

    CONSTRAINT "WorkOrderNote_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WorkOrderThreadRead" (
    "workOrderId" INTEGER NOT NULL,
    "contactId" INTEGER NOT NULL,
    "thread" "NoteThread" NOT NULL DEFAULT 'root',
    "readAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "WorkOrderThreadRead_pkey" PRIMARY KEY ("workOrderId","contactId","thread")
);

-- CreateTable
CREATE TABLE "WorkOrderSubscriber" (
    "workOrderId" INTEGER NOT NULL,
    "email" TEXT NOT NULL,

    CONSTRAINT "WorkOrderSubscriber_pkey" PRIMARY KEY ("workOrderId","email")
);

-- CreateTable
CREATE TABLE "WorkOrderLabelLink" (
    "workOrderId" INTEGER NOT NULL,
    "labelId" INTEGER NOT NULL,

    CONSTRAINT "WorkOrderLabelLink_pkey" PRIMARY KEY ("workOrderId","labelId")
);

-- CreateTable
CREATE TABLE "WorkOrderVisibility" (
    "workOrderId" INTEGER NOT NULL,
    "supplierFacilityId" INTEGER NOT NULL,

    CONSTRAINT "WorkOrderVisibility_pkey" PRIMARY KEY ("workOrderId","supplierFacilityId")
);

-- CreateTable
CREATE TABLE "ServiceCall" (
    "id" SERIAL NOT NULL,
    "workOrderId" INTEGER NOT NULL,
    "technicianEmail" TEXT,
    "scheduledAt" TIMESTAMPTZ(3),
    "checkInAt" TIMESTAMPTZ(3),
    "checkInNote" TEXT,
    "checkOutAt" TIMESTAMPTZ(3),
    "checkOutNote" TEXT,
    "outcome" TEXT,
    "reason" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ServiceCall_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OutboxEvent" (
    "id" BIGSERIAL NOT NULL,
    "eventType" TEXT NOT NULL,
    "workOrderId" INTEGER NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "payload" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "relayedAt" TIMESTAMPTZ(3),

    CONSTRAINT "OutboxEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WorkOrder_buyerCompanyId_createdAt_idx" ON "WorkOrder"("buyerCompanyId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "WorkOrder_buyerCompanyId_statusChangedAt_idx" ON "WorkOrder"("buyerCompanyId", "statusChangedAt");

-- CreateIndex
CREATE INDEX "WorkOrder_supplierFacilityId_statusChangedAt_idx" ON "WorkOrder"("supplierFacilityId", "statusChangedAt");

-- CreateIndex
CREATE INDEX "WorkOrder_locationId_idx" ON "WorkOrder"("locationId");

-- CreateIndex
CREATE INDEX "WorkOrder_assetId_idx" ON "WorkOrder"("assetId");

-- CreateIndex
CREATE INDEX "WorkOrder_plannedMaintenanceScheduleId_idx" ON "WorkOrder"("plannedMaintenanceScheduleId");

-- CreateIndex
CREATE INDEX "WorkOrder_parentWorkOrderId_idx" ON "WorkOrder"("parentWorkOrderId");

-- CreateIndex
CREATE INDEX "WorkOrder_searchVector_idx" ON "WorkOrder" USING GIN ("searchVector");

-- CreateIndex
CREATE INDEX "WorkOrder_subAssetIds_idx" ON "WorkOrder" USING GIN ("subAssetIds");

-- CreateIndex
CREATE INDEX "WorkOrderStatusChange_workOrderId_at_idx" ON "WorkOrderStatusChange"("workOrderId", "at");

-- CreateIndex
CREATE INDEX "WorkOrderNote_workOrderId_thread_noteAddedAt_idx" ON "WorkOrderNote"("workOrderId", "thread", "noteAddedAt");

-- CreateIndex
CREATE INDEX "WorkOrderLabelLink_labelId_idx" ON "WorkOrderLabelLink"("labelId");

-- CreateIndex
CREATE INDEX "ServiceCall_workOrderId_idx" ON "ServiceCall"("workOrderId");

-- CreateIndex
CREATE INDEX "OutboxEvent_relayedAt_id_idx" ON "OutboxEvent"("relayedAt", "id");

-- CreateIndex
CREATE INDEX "OutboxEvent_workOrderId_idx" ON "OutboxEvent"("workOrderId");

-- AddForeignKey
ALTER TABLE "WorkOrder" ADD CONSTRAINT "WorkOrder_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrder" ADD CONSTRAINT "WorkOrder_locationId_fkey" FOREIGN KEY ("locationId") REFERENCES "Location"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrder" ADD CONSTRAINT "WorkOrder_problemTypeId_fkey" FOREIGN KEY ("problemTypeId") REFERENCES "ProblemType"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrder" ADD CONSTRAINT "WorkOrder_supplierFacilityId_fkey" FOREIGN KEY ("supplierFacilityId") REFERENCES "SupplierFacility"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrder" ADD CONSTRAINT "WorkOrder_assetId_fkey" FOREIGN KEY ("assetId") REFERENCES "Asset"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrder" ADD CONSTRAINT "WorkOrder_parentWorkOrderId_fkey" FOREIGN KEY ("parentWorkOrderId") REFERENCES "WorkOrder"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrderStatusChange" ADD CONSTRAINT "WorkOrderStatusChange_workOrderId_fkey" FOREIGN KEY ("workOrderId") REFERENCES "WorkOrder"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrderNote" ADD CONSTRAINT "WorkOrderNote_workOrderId_fkey" FOREIGN KEY ("workOrderId") REFERENCES "WorkOrder"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrderThreadRead" ADD CONSTRAINT "WorkOrderThreadRead_workOrderId_fkey" FOREIGN KEY ("workOrderId") REFERENCES "WorkOrder"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrderSubscriber" ADD CONSTRAINT "WorkOrderSubscriber_workOrderId_fkey" FOREIGN KEY ("workOrderId") REFERENCES "WorkOrder"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrderLabelLink" ADD CONSTRAINT "WorkOrderLabelLink_workOrderId_fkey" FOREIGN KEY ("workOrderId") REFERENCES "WorkOrder"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrderLabelLink" ADD CONSTRAINT "WorkOrderLabelLink_labelId_fkey" FOREIGN KEY ("labelId") REFERENCES "Label"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrderVisibility" ADD CONSTRAINT "WorkOrderVisibility_workOrderId_fkey" FOREIGN KEY ("workOrderId") REFERENCES "WorkOrder"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ServiceCall" ADD CONSTRAINT "ServiceCall_workOrderId_fkey" FOREIGN KEY ("workOrderId") REFERENCES "WorkOrder"("id") ON DELETE CASCADE ON UPDATE CASCADE;
