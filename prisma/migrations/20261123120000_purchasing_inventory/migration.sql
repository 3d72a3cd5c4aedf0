-- Purchasing and inventory of internal service teams: the /v1/partners interface, docs/purchasing.md.

-- CreateEnum
CREATE TYPE "PurchaseRequestStatus" AS ENUM ('draft', 'submitted', 'approved', 'rejected', 'ordered');

-- CreateEnum
CREATE TYPE "PurchaseOrderStatus" AS ENUM ('draft', 'ordered', 'partially_received', 'received', 'cancelled');

-- CreateTable
CREATE TABLE "Vendor" (
    "id" SERIAL NOT NULL,
    "supplierCompanyId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT,
    "phone" TEXT,
    "address" TEXT,
    "accountNumber" TEXT,
    "notes" TEXT,
    "isActive" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Vendor_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EquipmentType" (
    "id" SERIAL NOT NULL,
    "supplierCompanyId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "manufacturer" TEXT,
    "modelNumber" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "EquipmentType_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Part" (
    "id" SERIAL NOT NULL,
    "supplierCompanyId" INTEGER NOT NULL,
    "number" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "unit" TEXT NOT NULL DEFAULT 'each',
    "defaultVendorId" INTEGER,
    "equipmentTypeId" INTEGER,
    "unitCost" DECIMAL(12,2),
    "isActive" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Part_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StockLocation" (
    "id" SERIAL NOT NULL,
    "supplierCompanyId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "StockLocation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StockLevel" (
    "stockLocationId" INTEGER NOT NULL,
    "partId" INTEGER NOT NULL,
    "onHand" DECIMAL(18,4) NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StockLevel_pkey" PRIMARY KEY ("stockLocationId","partId")
);

-- CreateTable
CREATE TABLE "WorkOrderPart" (
    "id" SERIAL NOT NULL,
    "supplierCompanyId" INTEGER NOT NULL,
    "workOrderId" INTEGER NOT NULL,
    "partId" INTEGER NOT NULL,
    "stockLocationId" INTEGER NOT NULL,
    "quantity" DECIMAL(14,4) NOT NULL,
    "note" TEXT,
    "consumedBy" TEXT NOT NULL,
    "consumedAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WorkOrderPart_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PurchaseRequest" (
    "id" SERIAL NOT NULL,
    "supplierCompanyId" INTEGER NOT NULL,
    "status" "PurchaseRequestStatus" NOT NULL DEFAULT 'draft',
    "description" TEXT,
    "neededBy" DATE,
    "requestedBy" TEXT NOT NULL,
    "submittedAt" TIMESTAMPTZ(3),
    "approvedAt" TIMESTAMPTZ(3),
    "approvedBy" TEXT,
    "rejectedAt" TIMESTAMPTZ(3),
    "rejectedBy" TEXT,
    "rejectionReason" TEXT,
    "orderedAt" TIMESTAMPTZ(3),
    "statusChangedAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "PurchaseRequest_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PurchaseRequestLineItem" (
    "id" SERIAL NOT NULL,
    "purchaseRequestId" INTEGER NOT NULL,
    "partId" INTEGER,
    "description" TEXT,
    "quantity" DECIMAL(14,4) NOT NULL,
    "estimatedUnitCost" DECIMAL(12,2),
    "workOrderId" INTEGER,
    "purchaseOrderLineItemId" INTEGER,

    CONSTRAINT "PurchaseRequestLineItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PurchaseOrder" (
    "id" SERIAL NOT NULL,
    "supplierCompanyId" INTEGER NOT NULL,
    "vendorId" INTEGER NOT NULL,
    "status" "PurchaseOrderStatus" NOT NULL DEFAULT 'draft',
    "notes" TEXT,
    "expectedAt" DATE,
    "createdBy" TEXT NOT NULL,
    "orderedAt" TIMESTAMPTZ(3),
    "receivedAt" TIMESTAMPTZ(3),
    "cancelledAt" TIMESTAMPTZ(3),
    "cancellationReason" TEXT,
    "statusChangedAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "PurchaseOrder_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PurchaseOrderLineItem" (
    "id" SERIAL NOT NULL,
    "purchaseOrderId" INTEGER NOT NULL,
    "partId" INTEGER,
    "description" TEXT,
    "quantity" DECIMAL(14,4) NOT NULL,
    "unitCost" DECIMAL(12,2) NOT NULL,
    "quantityReceived" DECIMAL(14,4) NOT NULL DEFAULT 0,

    CONSTRAINT "PurchaseOrderLineItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Receipt" (
    "id" SERIAL NOT NULL,
    "purchaseOrderId" INTEGER NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL,
    "receivedBy" TEXT NOT NULL,
    "note" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Receipt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ReceiptLine" (
    "id" SERIAL NOT NULL,
    "receiptId" INTEGER NOT NULL,
    "purchaseOrderLineItemId" INTEGER NOT NULL,
    "stockLocationId" INTEGER,
    "quantityReceived" DECIMAL(14,4) NOT NULL,

    CONSTRAINT "ReceiptLine_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Vendor_supplierCompanyId_name_idx" ON "Vendor"("supplierCompanyId", "name");

-- CreateIndex
CREATE INDEX "EquipmentType_supplierCompanyId_name_idx" ON "EquipmentType"("supplierCompanyId", "name");

-- CreateIndex
CREATE INDEX "Part_defaultVendorId_idx" ON "Part"("defaultVendorId");

-- CreateIndex
CREATE INDEX "Part_equipmentTypeId_idx" ON "Part"("equipmentTypeId");

-- CreateIndex
CREATE UNIQUE INDEX "Part_supplierCompanyId_number_key" ON "Part"("supplierCompanyId", "number");

-- CreateIndex
CREATE INDEX "StockLocation_supplierCompanyId_name_idx" ON "StockLocation"("supplierCompanyId", "name");

-- CreateIndex
CREATE INDEX "StockLevel_partId_idx" ON "StockLevel"("partId");

-- CreateIndex
CREATE INDEX "WorkOrderPart_supplierCompanyId_id_idx" ON "WorkOrderPart"("supplierCompanyId", "id");

-- CreateIndex
CREATE INDEX "WorkOrderPart_workOrderId_partId_idx" ON "WorkOrderPart"("workOrderId", "partId");

-- CreateIndex
CREATE INDEX "WorkOrderPart_partId_idx" ON "WorkOrderPart"("partId");

-- CreateIndex
CREATE INDEX "WorkOrderPart_stockLocationId_idx" ON "WorkOrderPart"("stockLocationId");

-- CreateIndex
CREATE INDEX "PurchaseRequest_supplierCompanyId_status_idx" ON "PurchaseRequest"("supplierCompanyId", "status");

-- CreateIndex
CREATE INDEX "PurchaseRequestLineItem_purchaseRequestId_idx" ON "PurchaseRequestLineItem"("purchaseRequestId");

-- CreateIndex
CREATE INDEX "PurchaseRequestLineItem_purchaseOrderLineItemId_idx" ON "PurchaseRequestLineItem"("purchaseOrderLineItemId");

-- CreateIndex
CREATE INDEX "PurchaseRequestLineItem_partId_idx" ON "PurchaseRequestLineItem"("partId");

-- CreateIndex
CREATE INDEX "PurchaseRequestLineItem_workOrderId_idx" ON "PurchaseRequestLineItem"("workOrderId");

-- CreateIndex
CREATE INDEX "PurchaseOrder_supplierCompanyId_status_idx" ON "PurchaseOrder"("supplierCompanyId", "status");

-- CreateIndex
CREATE INDEX "PurchaseOrder_vendorId_idx" ON "PurchaseOrder"("vendorId");

-- CreateIndex
CREATE INDEX "PurchaseOrderLineItem_purchaseOrderId_idx" ON "PurchaseOrderLineItem"("purchaseOrderId");

-- CreateIndex
CREATE INDEX "PurchaseOrderLineItem_partId_idx" ON "PurchaseOrderLineItem"("partId");

-- CreateIndex
CREATE INDEX "Receipt_purchaseOrderId_idx" ON "Receipt"("purchaseOrderId");

-- CreateIndex
CREATE INDEX "ReceiptLine_receiptId_idx" ON "ReceiptLine"("receiptId");

-- CreateIndex
CREATE INDEX "ReceiptLine_purchaseOrderLineItemId_idx" ON "ReceiptLine"("purchaseOrderLineItemId");

-- CreateIndex
CREATE INDEX "ReceiptLine_stockLocationId_idx" ON "ReceiptLine"("stockLocationId");

-- AddForeignKey
ALTER TABLE "Vendor" ADD CONSTRAINT "Vendor_supplierCompanyId_fkey" FOREIGN KEY ("supplierCompanyId") REFERENCES "SupplierCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EquipmentType" ADD CONSTRAINT "EquipmentType_supplierCompanyId_fkey" FOREIGN KEY ("supplierCompanyId") REFERENCES "SupplierCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Part" ADD CONSTRAINT "Part_supplierCompanyId_fkey" FOREIGN KEY ("supplierCompanyId") REFERENCES "SupplierCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Part" ADD CONSTRAINT "Part_defaultVendorId_fkey" FOREIGN KEY ("defaultVendorId") REFERENCES "Vendor"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Part" ADD CONSTRAINT "Part_equipmentTypeId_fkey" FOREIGN KEY ("equipmentTypeId") REFERENCES "EquipmentType"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StockLocation" ADD CONSTRAINT "StockLocation_supplierCompanyId_fkey" FOREIGN KEY ("supplierCompanyId") REFERENCES "SupplierCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StockLevel" ADD CONSTRAINT "StockLevel_stockLocationId_fkey" FOREIGN KEY ("stockLocationId") REFERENCES "StockLocation"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StockLevel" ADD CONSTRAINT "StockLevel_partId_fkey" FOREIGN KEY ("partId") REFERENCES "Part"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrderPart" ADD CONSTRAINT "WorkOrderPart_supplierCompanyId_fkey" FOREIGN KEY ("supplierCompanyId") REFERENCES "SupplierCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrderPart" ADD CONSTRAINT "WorkOrderPart_workOrderId_fkey" FOREIGN KEY ("workOrderId") REFERENCES "WorkOrder"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrderPart" ADD CONSTRAINT "WorkOrderPart_partId_fkey" FOREIGN KEY ("partId") REFERENCES "Part"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkOrderPart" ADD CONSTRAINT "WorkOrderPart_stockLocationId_fkey" FOREIGN KEY ("stockLocationId") REFERENCES "StockLocation"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PurchaseRequest" ADD CONSTRAINT "PurchaseRequest_supplierCompanyId_fkey" FOREIGN KEY ("supplierCompanyId") REFERENCES "SupplierCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PurchaseRequestLineItem" ADD CONSTRAINT "PurchaseRequestLineItem_purchaseRequestId_fkey" FOREIGN KEY ("purchaseRequestId") REFERENCES "PurchaseRequest"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PurchaseRequestLineItem" ADD CONSTRAINT "PurchaseRequestLineItem_partId_fkey" FOREIGN KEY ("partId") REFERENCES "Part"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PurchaseRequestLineItem" ADD CONSTRAINT "PurchaseRequestLineItem_workOrderId_fkey" FOREIGN KEY ("workOrderId") REFERENCES "WorkOrder"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PurchaseRequestLineItem" ADD CONSTRAINT "PurchaseRequestLineItem_purchaseOrderLineItemId_fkey" FOREIGN KEY ("purchaseOrderLineItemId") REFERENCES "PurchaseOrderLineItem"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PurchaseOrder" ADD CONSTRAINT "PurchaseOrder_supplierCompanyId_fkey" FOREIGN KEY ("supplierCompanyId") REFERENCES "SupplierCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PurchaseOrder" ADD CONSTRAINT "PurchaseOrder_vendorId_fkey" FOREIGN KEY ("vendorId") REFERENCES "Vendor"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PurchaseOrderLineItem" ADD CONSTRAINT "PurchaseOrderLineItem_purchaseOrderId_fkey" FOREIGN KEY ("purchaseOrderId") REFERENCES "PurchaseOrder"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PurchaseOrderLineItem" ADD CONSTRAINT "PurchaseOrderLineItem_partId_fkey" FOREIGN KEY ("partId") REFERENCES "Part"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Receipt" ADD CONSTRAINT "Receipt_purchaseOrderId_fkey" FOREIGN KEY ("purchaseOrderId") REFERENCES "PurchaseOrder"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ReceiptLine" ADD CONSTRAINT "ReceiptLine_receiptId_fkey" FOREIGN KEY ("receiptId") REFERENCES "Receipt"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ReceiptLine" ADD CONSTRAINT "ReceiptLine_purchaseOrderLineItemId_fkey" FOREIGN KEY ("purchaseOrderLineItemId") REFERENCES "PurchaseOrderLineItem"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ReceiptLine" ADD CONSTRAINT "ReceiptLine_stockLocationId_fkey" FOREIGN KEY ("stockLocationId") REFERENCES "StockLocation"("id") ON DELETE SET NULL ON UPDATE CASCADE;



-- Invariants the rules keep, enforced once more by the database (a bug cannot write them).
ALTER TABLE "StockLevel" ADD CONSTRAINT "StockLevel_onHand_not_negative" CHECK ("onHand" >= 0);
ALTER TABLE "PurchaseRequestLineItem" ADD CONSTRAINT "PurchaseRequestLineItem_quantity_positive" CHECK ("quantity" > 0);
ALTER TABLE "PurchaseOrderLineItem" ADD CONSTRAINT "PurchaseOrderLineItem_quantity_positive" CHECK ("quantity" > 0);
ALTER TABLE "PurchaseOrderLineItem" ADD CONSTRAINT "PurchaseOrderLineItem_received_within_ordered" CHECK ("quantityReceived" >= 0 AND "quantityReceived" <= "quantity");
ALTER TABLE "ReceiptLine" ADD CONSTRAINT "ReceiptLine_quantity_not_zero" CHECK ("quantityReceived" <> 0);
ALTER TABLE "WorkOrderPart" ADD CONSTRAINT "WorkOrderPart_quantity_not_zero" CHECK ("quantity" <> 0);
