-- CreateEnum
CREATE TYPE "ApiKeyKind" AS ENUM ('buyer', 'supplier', 'partner');

-- CreateEnum
CREATE TYPE "LabelKind" AS ENUM ('asset', 'work_order');

-- CreateEnum
CREATE TYPE "WebhookMode" AS ENUM ('test', 'production');

-- CreateTable
CREATE TABLE "BuyerCompany" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "subAssetsEnabled" BOOLEAN NOT NULL DEFAULT false,
    "serviceRequestsNeedApproval" BOOLEAN NOT NULL DEFAULT false,
    "cancellationLock" BOOLEAN NOT NULL DEFAULT false,
    "supplierInvoiceEditing" BOOLEAN NOT NULL DEFAULT true,
    "declineAutoPick" BOOLEAN NOT NULL DEFAULT false,
    "visibilityWebhooks" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BuyerCompany_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BuyerFacility" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "BuyerFacility_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SupplierCompany" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "internalTeamOfId" INTEGER,

    CONSTRAINT "SupplierCompany_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SupplierFacility" (
    "id" SERIAL NOT NULL,
    "supplierCompanyId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'USD',

    CONSTRAINT "SupplierFacility_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BuyerSupplierRelationship" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "supplierFacilityId" INTEGER NOT NULL,
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "BuyerSupplierRelationship_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SupplierRanking" (
    "id" SERIAL NOT NULL,
    "relationshipId" INTEGER NOT NULL,
    "locationId" INTEGER NOT NULL,
    "problemTypeId" INTEGER NOT NULL,
    "rank" INTEGER NOT NULL,

    CONSTRAINT "SupplierRanking_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Contact" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "nameGiven" TEXT NOT NULL,
    "nameFamily" TEXT NOT NULL,
    "roles" TEXT[],
    "buyerFacilityId" INTEGER,
    "supplierFacilityId" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Contact_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" SERIAL NOT NULL,
    "apiKey" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "kind" "ApiKeyKind" NOT NULL,
    "contactId" INTEGER NOT NULL,
    "rateLimitRequests" INTEGER,
    "rateLimitWindowSeconds" INTEGER,
    "expiresAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OperatorRef" (
    "kind" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "entityId" INTEGER NOT NULL,

    CONSTRAINT "OperatorRef_pkey" PRIMARY KEY ("kind","ref")
);

-- CreateTable
CREATE TABLE "Region" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "Region_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LocationType" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "fields" JSONB NOT NULL DEFAULT '[]',

    CONSTRAINT "LocationType_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Location" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "regionId" INTEGER,
    "locationTypeId" INTEGER,
    "name" TEXT NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'USD',
    "internalCode" TEXT,
    "storeContacts" TEXT[],
    "locationTypeDetails" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Location_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ProblemType" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "ProblemType_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Label" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "kind" "LabelKind" NOT NULL,
    "name" TEXT NOT NULL,
    "color" TEXT,
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Label_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AssetType" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "usesRefrigerant" BOOLEAN NOT NULL DEFAULT false,
    "refrigerantTypeCode" TEXT,
    "fullChargeLb" DOUBLE PRECISION,
    "applianceCategory" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AssetType_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Asset" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "locationId" INTEGER NOT NULL,
    "assetTypeId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "isActive" BOOLEAN NOT NULL DEFAULT true,
    "isLeased" BOOLEAN NOT NULL DEFAULT false,
    "serialNumber" TEXT,
    "manufacturer" TEXT,
    "installDate" DATE,
    "parentId" INTEGER,
    "refrigerantTypeCode" TEXT,
    "fullChargeLb" DOUBLE PRECISION,
    "applianceCategory" TEXT,
    "refrigerantRequiresProcessShutdown" BOOLEAN,
    "isRefrigerantTracked" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Asset_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookEndpoint" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER,
    "supplierFacilityId" INTEGER,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "mode" "WebhookMode" NOT NULL DEFAULT 'production',
    "secret" TEXT NOT NULL,
    "previousSecret" TEXT,
    "previousSecretExpiresAt" TIMESTAMPTZ(3),
    "disabledAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebhookEndpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CurrencyRate" (
    "id" SERIAL NOT NULL,
    "base" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "rate" DECIMAL(18,8) NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "CurrencyRate_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SiteSurvey" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "templateId" INTEGER,
    "heatMapRanges" JSONB,

    CONSTRAINT "SiteSurvey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SiteSurveyTask" (
    "id" SERIAL NOT NULL,
    "surveyId" INTEGER NOT NULL,
    "title" TEXT NOT NULL,

    CONSTRAINT "SiteSurveyTask_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Walkthrough" (
    "id" SERIAL NOT NULL,
    "surveyId" INTEGER NOT NULL,
    "locationId" INTEGER NOT NULL,
    "completedById" INTEGER,
    "scores" INTEGER[],
    "completedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Walkthrough_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WalkthroughAnswer" (
    "id" SERIAL NOT NULL,
    "walkthroughId" INTEGER NOT NULL,
    "taskId" INTEGER NOT NULL,
    "answer" TEXT NOT NULL,

    CONSTRAINT "WalkthroughAnswer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PlannedMaintenanceSchedule" (
    "id" SERIAL NOT NULL,
    "buyerCompanyId" INTEGER NOT NULL,
    "locationId" INTEGER NOT NULL,
    "problemTypeId" INTEGER NOT NULL,
    "supplierFacilityId" INTEGER,
    "title" TEXT NOT NULL,
    "cadence" TEXT NOT NULL,
    "nextRunAt" TIMESTAMPTZ(3) NOT NULL,
    "assetIds" INTEGER[],

    CONSTRAINT "PlannedMaintenanceSchedule_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "BuyerFacility_buyerCompanyId_idx" ON "BuyerFacility"("buyerCompanyId");

-- CreateIndex
CREATE INDEX "SupplierCompany_internalTeamOfId_idx" ON "SupplierCompany"("internalTeamOfId");

-- CreateIndex
CREATE INDEX "SupplierFacility_supplierCompanyId_idx" ON "SupplierFacility"("supplierCompanyId");

-- CreateIndex
CREATE INDEX "BuyerSupplierRelationship_supplierFacilityId_idx" ON "BuyerSupplierRelationship"("supplierFacilityId");

-- CreateIndex
CREATE UNIQUE INDEX "BuyerSupplierRelationship_buyerCompanyId_supplierFacilityId_key" ON "BuyerSupplierRelationship"("buyerCompanyId", "supplierFacilityId");

-- CreateIndex
CREATE INDEX "SupplierRanking_locationId_problemTypeId_rank_idx" ON "SupplierRanking"("locationId", "problemTypeId", "rank");

-- CreateIndex
CREATE UNIQUE INDEX "SupplierRanking_relationshipId_locationId_problemTypeId_key" ON "SupplierRanking"("relationshipId", "locationId", "problemTypeId");

-- CreateIndex
CREATE UNIQUE INDEX "Contact_email_key" ON "Contact"("email");

-- CreateIndex
CREATE INDEX "Contact_buyerFacilityId_idx" ON "Contact"("buyerFacilityId");

-- CreateIndex
CREATE INDEX "Contact_supplierFacilityId_idx" ON "Contact"("supplierFacilityId");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_apiKey_key" ON "ApiKey"("apiKey");

-- CreateIndex
CREATE INDEX "ApiKey_contactId_idx" ON "ApiKey"("contactId");

-- CreateIndex
CREATE INDEX "Region_buyerCompanyId_idx" ON "Region"("buyerCompanyId");

-- CreateIndex
CREATE INDEX "LocationType_buyerCompanyId_idx" ON "LocationType"("buyerCompanyId");

-- CreateIndex
CREATE INDEX "Location_buyerCompanyId_id_idx" ON "Location"("buyerCompanyId", "id");

-- CreateIndex
CREATE INDEX "Location_regionId_idx" ON "Location"("regionId");

-- CreateIndex
CREATE INDEX "ProblemType_buyerCompanyId_idx" ON "ProblemType"("buyerCompanyId");

-- CreateIndex
CREATE INDEX "Label_buyerCompanyId_kind_idx" ON "Label"("buyerCompanyId", "kind");

-- CreateIndex
CREATE INDEX "AssetType_buyerCompanyId_idx" ON "AssetType"("buyerCompanyId");

-- CreateIndex
CREATE INDEX "Asset_buyerCompanyId_id_idx" ON "Asset"("buyerCompanyId", "id");

-- CreateIndex
CREATE INDEX "Asset_locationId_idx" ON "Asset"("locationId");

-- CreateIndex
CREATE INDEX "Asset_assetTypeId_idx" ON "Asset"("assetTypeId");

-- CreateIndex
CREATE INDEX "WebhookEndpoint_buyerCompanyId_idx" ON "WebhookEndpoint"("buyerCompanyId");

-- CreateIndex
CREATE INDEX "WebhookEndpoint_supplierFacilityId_idx" ON "WebhookEndpoint"("supplierFacilityId");

-- CreateIndex
CREATE INDEX "CurrencyRate_target_base_at_idx" ON "CurrencyRate"("target", "base", "at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "CurrencyRate_base_target_at_key" ON "CurrencyRate"("base", "target", "at");

-- CreateIndex
CREATE INDEX "SiteSurvey_buyerCompanyId_idx" ON "SiteSurvey"("buyerCompanyId");

-- CreateIndex
CREATE INDEX "SiteSurveyTask_surveyId_idx" ON "SiteSurveyTask"("surveyId");

-- CreateIndex
CREATE INDEX "Walkthrough_locationId_idx" ON "Walkthrough"("locationId");

-- CreateIndex
CREATE INDEX "WalkthroughAnswer_walkthroughId_idx" ON "WalkthroughAnswer"("walkthroughId");

-- CreateIndex
CREATE INDEX "PlannedMaintenanceSchedule_buyerCompanyId_idx" ON "PlannedMaintenanceSchedule"("buyerCompanyId");

-- AddForeignKey
ALTER TABLE "BuyerFacility" ADD CONSTRAINT "BuyerFacility_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SupplierCompany" ADD CONSTRAINT "SupplierCompany_internalTeamOfId_fkey" FOREIGN KEY ("internalTeamOfId") REFERENCES "BuyerCompany"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SupplierFacility" ADD CONSTRAINT "SupplierFacility_supplierCompanyId_fkey" FOREIGN KEY ("supplierCompanyId") REFERENCES "SupplierCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BuyerSupplierRelationship" ADD CONSTRAINT "BuyerSupplierRelationship_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BuyerSupplierRelationship" ADD CONSTRAINT "BuyerSupplierRelationship_supplierFacilityId_fkey" FOREIGN KEY ("supplierFacilityId") REFERENCES "SupplierFacility"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SupplierRanking" ADD CONSTRAINT "SupplierRanking_relationshipId_fkey" FOREIGN KEY ("relationshipId") REFERENCES "BuyerSupplierRelationship"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SupplierRanking" ADD CONSTRAINT "SupplierRanking_locationId_fkey" FOREIGN KEY ("locationId") REFERENCES "Location"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SupplierRanking" ADD CONSTRAINT "SupplierRanking_problemTypeId_fkey" FOREIGN KEY ("problemTypeId") REFERENCES "ProblemType"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Contact" ADD CONSTRAINT "Contact_buyerFacilityId_fkey" FOREIGN KEY ("buyerFacilityId") REFERENCES "BuyerFacility"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Contact" ADD CONSTRAINT "Contact_supplierFacilityId_fkey" FOREIGN KEY ("supplierFacilityId") REFERENCES "SupplierFacility"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_contactId_fkey" FOREIGN KEY ("contactId") REFERENCES "Contact"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Region" ADD CONSTRAINT "Region_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LocationType" ADD CONSTRAINT "LocationType_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Location" ADD CONSTRAINT "Location_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Location" ADD CONSTRAINT "Location_regionId_fkey" FOREIGN KEY ("regionId") REFERENCES "Region"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Location" ADD CONSTRAINT "Location_locationTypeId_fkey" FOREIGN KEY ("locationTypeId") REFERENCES "LocationType"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ProblemType" ADD CONSTRAINT "ProblemType_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Label" ADD CONSTRAINT "Label_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AssetType" ADD CONSTRAINT "AssetType_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Asset" ADD CONSTRAINT "Asset_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Asset" ADD CONSTRAINT "Asset_locationId_fkey" FOREIGN KEY ("locationId") REFERENCES "Location"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Asset" ADD CONSTRAINT "Asset_assetTypeId_fkey" FOREIGN KEY ("assetTypeId") REFERENCES "AssetType"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Asset" ADD CONSTRAINT "Asset_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Asset"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookEndpoint" ADD CONSTRAINT "WebhookEndpoint_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookEndpoint" ADD CONSTRAINT "WebhookEndpoint_supplierFacilityId_fkey" FOREIGN KEY ("supplierFacilityId") REFERENCES "SupplierFacility"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SiteSurvey" ADD CONSTRAINT "SiteSurvey_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SiteSurvey" ADD CONSTRAINT "SiteSurvey_templateId_fkey" FOREIGN KEY ("templateId") REFERENCES "SiteSurvey"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SiteSurveyTask" ADD CONSTRAINT "SiteSurveyTask_surveyId_fkey" FOREIGN KEY ("surveyId") REFERENCES "SiteSurvey"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Walkthrough" ADD CONSTRAINT "Walkthrough_surveyId_fkey" FOREIGN KEY ("surveyId") REFERENCES "SiteSurvey"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Walkthrough" ADD CONSTRAINT "Walkthrough_locationId_fkey" FOREIGN KEY ("locationId") REFERENCES "Location"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Walkthrough" ADD CONSTRAINT "Walkthrough_completedById_fkey" FOREIGN KEY ("completedById") REFERENCES "Contact"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WalkthroughAnswer" ADD CONSTRAINT "WalkthroughAnswer_walkthroughId_fkey" FOREIGN KEY ("walkthroughId") REFERENCES "Walkthrough"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WalkthroughAnswer" ADD CONSTRAINT "WalkthroughAnswer_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "SiteSurveyTask"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PlannedMaintenanceSchedule" ADD CONSTRAINT "PlannedMaintenanceSchedule_buyerCompanyId_fkey" FOREIGN KEY ("buyerCompanyId") REFERENCES "BuyerCompany"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PlannedMaintenanceSchedule" ADD CONSTRAINT "PlannedMaintenanceSchedule_locationId_fkey" FOREIGN KEY ("locationId") REFERENCES "Location"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PlannedMaintenanceSchedule" ADD CONSTRAINT "PlannedMaintenanceSchedule_problemTypeId_fkey" FOREIGN KEY ("problemTypeId") REFERENCES "ProblemType"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PlannedMaintenanceSchedule" ADD CONSTRAINT "PlannedMaintenanceSchedule_supplierFacilityId_fkey" FOREIGN KEY ("supplierFacilityId") REFERENCES "SupplierFacility"("id") ON DELETE SET NULL ON UPDATE CASCADE;
