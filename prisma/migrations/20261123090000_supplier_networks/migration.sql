-- AlterTable
ALTER TABLE "BuyerSupplierRelationship" ADD COLUMN     "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "isPreferred" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "supplierAccountEmails" TEXT[],
ADD COLUMN     "trades" TEXT[],
ADD COLUMN     "workOrdersRoutedTo" TEXT[];

-- AlterTable
ALTER TABLE "Contact" ADD COLUMN     "isNew" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "SupplierSupplierRelationship" (
    "id" SERIAL NOT NULL,
    "sourceSupplierFacilityId" INTEGER NOT NULL,
    "supplierFacilityId" INTEGER NOT NULL,
    "workOrdersRoutedTo" TEXT[],
    "supplierAccountEmails" TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "SupplierSupplierRelationship_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SupplierSupplierRelationship_supplierFacilityId_idx" ON "SupplierSupplierRelationship"("supplierFacilityId");

-- CreateIndex
CREATE UNIQUE INDEX "SupplierSupplierRelationship_sourceSupplierFacilityId_suppl_key" ON "SupplierSupplierRelationship"("sourceSupplierFacilityId", "supplierFacilityId");

-- AddForeignKey
ALTER TABLE "SupplierSupplierRelationship" ADD CONSTRAINT "SupplierSupplierRelationship_sourceSupplierFacilityId_fkey" FOREIGN KEY ("sourceSupplierFacilityId") REFERENCES "SupplierFacility"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SupplierSupplierRelationship" ADD CONSTRAINT "SupplierSupplierRelationship_supplierFacilityId_fkey" FOREIGN KEY ("supplierFacilityId") REFERENCES "SupplierFacility"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
