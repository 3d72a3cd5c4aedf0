-- CreateEnum
CREATE TYPE "ProposalStatus" AS ENUM ('pending', 'awarded', 'declined');

-- CreateEnum
CREATE TYPE "InvoiceStatus" AS ENUM ('draft', 'pending', 'approved', 'processing', 'paid', 'disputed');

-- AlterTable
ALTER TABLE "WorkOrder" ADD COLUMN     "requestForProposalId" INTEGER,
ADD COLUMN     "spendCategoryId" INTEGER;

-- CreateTable
CREATE TABLE "StoredFile" (
    "id" SERIAL NOT NULL,
    "supplierFacilityId" INTEGER NOT NULL,
    "uploadedById" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "storageKey" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StoredFile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Proposal" (
    "id" SERIAL NOT NULL,
    "workOrderId" INTEGER NOT NULL,
    "supplierFacilityId" INTEGER NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "buyerFacilityId" INTEGER NOT NULL,
    "locationId" INTEGER NOT NULL,
    "requestForProposalId" INTEGER,
    "status" "ProposalStatus" NOT NULL DEFAULT 'pending',
    "scope" TEXT,
    "laborLineItems" JSONB NOT NULL DEFAULT '[]',
    "laborTaxRate" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "laborTotalBeforeTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "materialLineItems" JSONB NOT NULL DEFAULT '[]',
    "materialTaxRate" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "materialTotalBeforeTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "travelLineItems" JSONB NOT NULL DEFAULT '[]',
    "travelTaxRate" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "travelTotalBeforeTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "freightLineItems" JSONB NOT NULL DEFAULT '[]',
    "freightTaxRate" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "freightTotalBeforeTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "miscLineItems" JSONB NOT NULL DEFAULT '[]',
    "miscTaxRate" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "miscTotalBeforeTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "incurredCostLineItems" JSONB NOT NULL DEFAULT '[]',
    "incurredCostTaxRate" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "incurredCostTotalBeforeTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "totalBeforeTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "taxRate" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "tax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "totalAfterTax" DECIMAL(14,2) NOT NULL,
    "proposalPdfLink" TEXT,
    "declineNotes" TEXT,
    "decidedAt" TIMESTAMPTZ(3),
    "decidedBy" TEXT,
    "createdById" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Proposal_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ProposalAttachment" (
    "proposalId" INTEGER NOT NULL,
    "fileId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "ProposalAttachment_pkey" PRIMARY KEY ("proposalId","fileId")
);

-- CreateTable
CREATE TABLE "Invoice" (
    "id" SERIAL NOT NULL,
    "workOrderId" INTEGER NOT NULL,
    "supplierFacilityId" INTEGER NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "buyerFacilityId" INTEGER NOT NULL,
    "locationId" INTEGER NOT NULL,
    "problemTypeId" INTEGER NOT NULL,
    "spendCategoryId" INTEGER,
    "currency" TEXT NOT NULL,
    "status" "InvoiceStatus" NOT NULL DEFAULT 'draft',
    "invoiceNumber" TEXT,
    "dateOfInvoice" TIMESTAMPTZ(3) NOT NULL,
    "poNumber" TEXT,
    "serviceCallIds" INTEGER[],
    "laborLineItems" JSONB NOT NULL DEFAULT '[]',
    "laborTaxRate" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "laborTotalBeforeTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "materialLineItems" JSONB NOT NULL DEFAULT '[]',
    "materialTaxRate" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "materialTotalBeforeTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "travelLineItems" JSONB NOT NULL DEFAULT '[]',
    "travelTaxRate" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "travelTotalBeforeTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "freightLineItems" JSONB NOT NULL DEFAULT '[]',
    "freightTaxRate" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "freightTotalBeforeTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "miscLineItems" JSONB NOT NULL DEFAULT '[]',
    "miscTaxRate" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "miscTotalBeforeTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "incurredCostLineItems" JSONB NOT NULL DEFAULT '[]',
    "incurredCostTaxRate" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "incurredCostTotalBeforeTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "taxLineItems" JSONB NOT NULL DEFAULT '[]',
    "invoiceTotalBeforeTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "invoiceTaxRate" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "invoiceTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "invoiceTotalAfterTax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "pdfUrl" TEXT,
    "pdfFileId" INTEGER,
    "autoPublishOnApproval" BOOLEAN NOT NULL DEFAULT false,
    "publishedAt" TIMESTAMPTZ(3),
    "approvedAt" TIMESTAMPTZ(3),
    "processedAt" TIMESTAMPTZ(3),
    "markedPaidAt" TIMESTAMPTZ(3),
    "disputedAt" TIMESTAMPTZ(3),
    "disputeNotes" TEXT,
    "approvalNotes" TEXT,
    "processingNotes" TEXT,
    "glCode" TEXT,
    "statusChangedAt" TIMESTAMPTZ(3) NOT NULL,
    "createdById" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Invoice_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "StoredFile_storageKey_key" ON "StoredFile"("storageKey");

-- CreateIndex
CREATE INDEX "StoredFile_supplierFacilityId_id_idx" ON "StoredFile"("supplierFacilityId", "id");

-- CreateIndex
CREATE INDEX "Proposal_buyerCompanyId_id_idx" ON "Proposal"("buyerCompanyId", "id");

-- CreateIndex
CREATE INDEX "Proposal_supplierFacilityId_id_idx" ON "Proposal"("supplierFacilityId", "id");

-- CreateIndex
CREATE INDEX "Proposal_workOrderId_idx" ON "Proposal"("workOrderId");

-- CreateIndex
CREATE INDEX "ProposalAttachment_fileId_idx" ON "ProposalAttachment"("fileId");

-- CreateIndex
CREATE INDEX "Invoice_buyerCompanyId_id_idx" ON "Invoice"("buyerCompanyId", "id");

-- CreateIndex
CREATE INDEX "Invoice_supplierFacilityId_id_idx" ON "Invoice"("supplierFacilityId", "id");

-- CreateIndex
CREATE INDEX "Invoice_workOrderId_idx" ON "Invoice"("workOrderId");

-- CreateIndex
CREATE INDEX "Invoice_pdfFileId_idx" ON "Invoice"("pdfFileId");

-- CreateIndex
CREATE INDEX "Invoice_auto_publish_idx" ON "Invoice"("workOrderId") WHERE (status = 'draft' AND "autoPublishOnApproval");

-- CreateIndex
CREATE UNIQUE INDEX "Invoice_supplierFacilityId_invoiceNumber_key" ON "Invoice"("supplierFacilityId", "invoiceNumber");

-- AddForeignKey
ALTER TABLE "Proposal" ADD CONSTRAINT "Proposal_workOrderId_fkey" FOREIGN KEY ("workOrderId") REFERENCES "WorkOrder"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ProposalAttachment" ADD CONSTRAINT "ProposalAttachment_proposalId_fkey" FOREIGN KEY ("proposalId") REFERENCES "Proposal"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ProposalAttachment" ADD CONSTRAINT "ProposalAttachment_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "StoredFile"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Invoice" ADD CONSTRAINT "Invoice_workOrderId_fkey" FOREIGN KEY ("workOrderId") REFERENCES "WorkOrder"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Invoice" ADD CONSTRAINT "Invoice_pdfFileId_fkey" FOREIGN KEY ("pdfFileId") REFERENCES "StoredFile"("id") ON DELETE SET NULL ON UPDATE CASCADE;


