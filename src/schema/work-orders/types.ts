import { builder } from "../builder.ts";
import { masked } from "../common/masking.ts";
import { pageType } from "../common/list.ts";
import { STATUSES } from "./state-machine.ts";

export const WorkOrderStatusEnum = builder.enumType("WorkOrderStatus", { values: STATUSES });

export const StatusChangeRef = builder.prismaObject("WorkOrderStatusChange", {
  fields: (t) => ({
    from: t.field({ type: WorkOrderStatusEnum, nullable: true, resolve: (c) => c.from }),
    to: t.field({ type: WorkOrderStatusEnum, resolve: (c) => c.to }),
    action: t.exposeString("action"),
    actor: t.exposeString("actor"),
    actorKind: t.exposeString("actorKind"),
    at: t.expose("at", { type: "DateTime" }),
  }),
});

export const ServiceCallRef = builder.prismaObject("ServiceCall", {
  fields: (t) => ({
    id: t.exposeInt("id"),
    technicianEmail: t.exposeString("technicianEmail", { nullable: true }),
    scheduledAt: t.expose("scheduledAt", { type: "DateTime", nullable: true }),
    checkInAt: t.expose("checkInAt", { type: "DateTime", nullable: true }),
    checkInNote: t.exposeString("checkInNote", { nullable: true }),
    checkOutAt: t.expose("checkOutAt", { type: "DateTime", nullable: true }),
    checkOutNote: t.exposeString("checkOutNote", { nullable: true }),
    outcome: t.exposeString("outcome", { nullable: true }),
    reason: t.exposeString("reason", { nullable: true }),
  }),
});

const money = (value: { toFixed(d: number): string } | null) => (value === null ? null : value.toFixed(2));

export const WorkOrderRef = builder.prismaObject("WorkOrder", {
  // Buyer-private for third-party supplier keys (decisions.md §6): budget codes, internal notes,
  // approval details and the buyer subscriber list.
  extensions: masked({ thirdParty: ["nte", "glCode", "costCenter", "internalNotes", "approvedBy", "approvedAt", "subscribers"] }),
  fields: (t) => ({
    id: t.exposeInt("id"),
    title: t.exposeString("title"),
    description: t.exposeString("description", { nullable: true }),
    status: t.field({ type: WorkOrderStatusEnum, resolve: (w) => w.status }),
    locationId: t.exposeInt("locationId"),
    problemTypeId: t.exposeInt("problemTypeId"),
    buyerFacilityId: t.exposeInt("buyerFacilityId"),
    buyerCompanyId: t.exposeInt("buyerCompanyId"),
    createdBy: t.exposeString("createdBy"),
    supplierFacilityId: t.exposeInt("supplierFacilityId", { nullable: true }),
    supplierPrimaryContactEmail: t.exposeString("supplierPrimaryContactEmail", { nullable: true }),
    assetId: t.exposeInt("assetId", { nullable: true }),
    subAssetIds: t.exposeIntList("subAssetIds"),
    needsApproval: t.exposeBoolean("needsApproval"),
    isPM: t.exposeBoolean("isPM"),
    plannedMaintenanceScheduleId: t.exposeInt("plannedMaintenanceScheduleId", { nullable: true }),
    walkThroughId: t.exposeInt("walkThroughId", { nullable: true }),
    siteSurveyTaskTitleId: t.exposeInt("siteSurveyTaskTitleId", { nullable: true }),
    includeWalkthroughTaskList: t.exposeBoolean("includeWalkthroughTaskList"),
    parentWorkOrderId: t.exposeInt("parentWorkOrderId", { nullable: true }),
    poNumber: t.exposeString("poNumber", { nullable: true }),
    woPriority: t.exposeInt("woPriority", { nullable: true, description: "Expected resolution time in hours" }),
    currencyId: t.exposeString("currencyId", { nullable: true }),
    locationCurrencyId: t.exposeString("locationCurrencyId", { nullable: true }),
    currencyExchangeRate: t.string({ nullable: true, resolve: (w) => w.currencyExchangeRate?.toString() ?? null }),
    currencyExchangeRateAt: t.expose("currencyExchangeRateAt", { type: "DateTime", nullable: true }),
    nte: t.string({ nullable: true, resolve: (w) => money(w.nte) }),
    glCode: t.exposeString("glCode", { nullable: true }),
    costCenter: t.exposeString("costCenter", { nullable: true }),
    internalNotes: t.exposeString("internalNotes", { nullable: true }),
    approvedBy: t.exposeString("approvedBy", { nullable: true }),
    approvedAt: t.expose("approvedAt", { type: "DateTime", nullable: true }),
    subscribers: t.stringList({
      nullable: true,
      select: { subscribers: { orderBy: { email: "asc" } } },
      resolve: (w) => w.subscribers.map((s) => s.email),
    }),
    statusChangedAt: t.expose("statusChangedAt", { type: "DateTime" }),
    statusChanges: t.relation("statusChanges", { query: { orderBy: [{ at: "asc" }, { id: "asc" }] } }),
    assignedAt: t.expose("assignedAt", { type: "DateTime", nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    serviceCalls: t.relation("serviceCalls", { query: { orderBy: { id: "asc" } } }),
    location: t.relation("location", { subGraphs: ["graphql"] }),
    asset: t.relation("asset", { nullable: true, subGraphs: ["graphql"] }),
  }),
});

export const WorkOrderPage = pageType("WorkOrder", WorkOrderRef);
