-- Fuzzy asset model matching uses trigram similarity.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateEnum
CREATE TYPE "ReadingMode" AS ENUM ('direct_reading', 'change_from_baseline', 'compare_to_target');

-- AlterTable
ALTER TABLE "Asset" ADD COLUMN     "assetModelId" INTEGER,
ADD COLUMN     "warranties" JSONB NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "Contact" ADD COLUMN     "brandIds" INTEGER[],
ADD COLUMN     "epaCertificationNumber" TEXT,
ADD COLUMN     "epaCertificationType" TEXT,
ADD COLUMN     "hasAccessToAllLocations" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "invitedAt" TIMESTAMPTZ(3),
ADD COLUMN     "locationIds" INTEGER[],
ADD COLUMN     "passwordHash" TEXT,
ADD COLUMN     "passwordResetRequired" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "AssetLabelLink" (
    "assetId" INTEGER NOT NULL,
    "labelId" INTEGER NOT NULL,

    CONSTRAINT "AssetLabelLink_pkey" PRIMARY KEY ("assetId","labelId")
);

-- CreateTable
CREATE TABLE "AssetModel" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "assetTypeId" INTEGER NOT NULL,
    "modelName" TEXT NOT NULL,
    "manuals" JSONB NOT NULL DEFAULT '[]',
    "specs" JSONB NOT NULL DEFAULT '[]',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AssetModel_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MeterType" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "valueType" TEXT NOT NULL,
    "valueUnit" TEXT,

    CONSTRAINT "MeterType_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Meter" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "assetId" INTEGER NOT NULL,
    "meterTypeId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "readingMode" "ReadingMode" NOT NULL DEFAULT 'direct_reading',
    "valueType" TEXT NOT NULL,
    "valueUnit" TEXT,
    "locationId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Meter_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MeterReading" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "meterId" INTEGER NOT NULL,
    "value" DECIMAL(20,6) NOT NULL,
    "expectedValue" TEXT,
    "recordedAt" TIMESTAMPTZ(3) NOT NULL,
    "recordedBy" TEXT,
    "isBaseline" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MeterReading_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AssetLabelLink_labelId_idx" ON "AssetLabelLink"("labelId");

-- CreateIndex
CREATE INDEX "AssetModel_buyerCompanyId_assetTypeId_idx" ON "AssetModel"("buyerCompanyId", "assetTypeId");

-- CreateIndex
CREATE INDEX "AssetModel_modelName_idx" ON "AssetModel" USING GIN ("modelName" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "MeterType_buyerCompanyId_idx" ON "MeterType"("buyerCompanyId");

-- CreateIndex
CREATE INDEX "Meter_buyerCompanyId_idx" ON "Meter"("buyerCompanyId");

-- CreateIndex
CREATE INDEX "Meter_assetId_idx" ON "Meter"("assetId");

-- CreateIndex
CREATE INDEX "MeterReading_buyerCompanyId_id_idx" ON "MeterReading"("buyerCompanyId", "id");

-- CreateIndex
CREATE INDEX "MeterReading_meterId_recordedAt_idx" ON "MeterReading"("meterId", "recordedAt");

-- AddForeignKey
ALTER TABLE "AssetLabelLink" ADD CONSTRAINT "AssetLabelLink_assetId_fkey" FOREIGN KEY ("assetId") REFERENCES "Asset"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AssetLabelLink" ADD CONSTRAINT "AssetLabelLink_labelId_fkey" FOREIGN KEY ("labelId") REFERENCES "Label"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Asset" ADD CONSTRAINT "Asset_assetModelId_fkey" FOREIGN KEY ("assetModelId") REFERENCES "AssetModel"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AssetModel" ADD CONSTRAINT "AssetModel_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AssetModel" ADD CONSTRAINT "AssetModel_assetTypeId_fkey" FOREIGN KEY ("assetTypeId") REFERENCES "AssetType"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MeterType" ADD CONSTRAINT "MeterType_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Meter" ADD CONSTRAINT "Meter_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Meter" ADD CONSTRAINT "Meter_assetId_fkey" FOREIGN KEY ("assetId") REFERENCES "Asset"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Meter" ADD CONSTRAINT "Meter_meterTypeId_fkey" FOREIGN KEY ("meterTypeId") REFERENCES "MeterType"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MeterReading" ADD CONSTRAINT "MeterReading_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MeterReading" ADD CONSTRAINT "MeterReading_meterId_fkey" FOREIGN KEY ("meterId") REFERENCES "Meter"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
