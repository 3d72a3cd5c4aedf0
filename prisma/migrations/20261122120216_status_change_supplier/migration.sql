-- AlterTable
ALTER TABLE "WorkOrderStatusChange" ADD COLUMN     "supplierFacilityId" INTEGER;
