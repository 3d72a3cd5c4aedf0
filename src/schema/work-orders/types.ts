// The work order's GraphQL types: the work order (masked for third-party suppliers), its notes, status
// history and service calls, problem types, the published transition table, and the write bodies.
import { builder } from "../core/builder.ts";
import { closedSet } from "../core/interfaces.ts";
import { masked } from "../core/masking.ts";
import { scopedNode } from "../core/node.ts";
import { workOrderScope } from "./rules/scope.ts";
import { problemTypeScope } from "./rules/problem-types.ts";
import { connectionLimits, connectionTypes } from "../core/connection.ts";
import { relationQuery, rowsInScope } from "../core/relations.ts";
import type { ProblemType } from "../../generated/prisma/client.ts";
import { pageType } from "../core/list.ts";
import { moneyText } from "../core/values.ts";
import { STATUSES, TRANSITION_ROWS, type TransitionRow } from "./rules/state-machine.ts";
import { MAX_BULK_NOTES, MAX_TAGGED_USERS } from "./rules/notes.ts";

// Closed sets kept as strings in GraphQL, documented as enums in OpenAPI (src/rest/openapi.ts).
const ACTIONS = [...new Set(TRANSITION_ROWS.map((r) => r.action))];
const ACTOR_KINDS = ["buyer", "supplier", "system"];
const OUTCOMES = ["completed", "incomplete"];

export const WorkOrderStatusEnum = builder.enumType("WorkOrderStatus", { values: STATUSES });

builder.prismaObject("WorkOrderStatusChange", {
  fields: (t) => ({
    from: t.field({ type: WorkOrderStatusEnum, nullable: true, resolve: (c) => c.from }),
    to: t.field({ type: WorkOrderStatusEnum, resolve: (c) => c.to }),
    action: t.exposeString("action", { extensions: closedSet(ACTIONS) }),
    actor: t.exposeString("actor"),
    actorKind: t.exposeString("actorKind", { extensions: closedSet(ACTOR_KINDS) }),
    at: t.expose("at", { type: "DateTime" }),
  }),
});

builder.prismaObject("ServiceCall", {
  fields: (t) => ({
    id: t.exposeInt("id"),
    technicianEmail: t.exposeString("technicianEmail", { nullable: true }),
    scheduledAt: t.expose("scheduledAt", { type: "DateTime", nullable: true }),
    checkInAt: t.expose("checkInAt", { type: "DateTime", nullable: true }),
    checkInNote: t.exposeString("checkInNote", { nullable: true }),
    checkOutAt: t.expose("checkOutAt", { type: "DateTime", nullable: true }),
    checkOutNote: t.exposeString("checkOutNote", { nullable: true }),
    outcome: t.exposeString("outcome", { nullable: true, extensions: closedSet(OUTCOMES) }),
    reason: t.exposeString("reason", { nullable: true }),
  }),
});

export const WorkOrderRef = builder.prismaNode("WorkOrder", {
  ...scopedNode(workOrderScope),
  // Buyer-private for third-party supplier keys (docs/decisions.md#masking): budget codes, internal notes,
  // approval details and the buyer subscriber list.
  extensions: masked({
    thirdParty: ["nte", "glCode", "costCenter", "internalNotes", "approvedBy", "approvedAt", "subscribers"],
  }),
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
    requestForProposalId: t.exposeInt("requestForProposalId", {
      nullable: true,
      description: "Proposals default to it",
    }),
    spendCategoryId: t.exposeInt("spendCategoryId", { nullable: true, description: "Invoices derive it" }),
    currencyId: t.exposeString("currencyId", { nullable: true }),
    locationCurrencyId: t.exposeString("locationCurrencyId", { nullable: true }),
    currencyExchangeRate: t.string({ nullable: true, resolve: (w) => w.currencyExchangeRate?.toString() ?? null }),
    currencyExchangeRateAt: t.expose("currencyExchangeRateAt", { type: "DateTime", nullable: true }),
    nte: t.string({ nullable: true, resolve: (w) => moneyText(w.nte) }),
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
    // The dashboard graph (GraphQL only, docs/dashboards.md): the work order's own records, and the
    // relations into work-order models, each within its read scope. Relations into other features'
    // models are declared by those features (builder.prismaObjectField), with their own scopes.
    problemType: t.prismaField({
      type: "ProblemType",
      nullable: true,
      subGraphs: ["graphql"],
      description: "The problem type; null when the key may not read problem types (only buyer keys do)",
      resolve: (query, wo, _args, ctx) =>
        rowsInScope<ProblemType>(ctx, "ProblemType", problemTypeScope, query).load(wo.problemTypeId),
    }),
    parentWorkOrder: t.relation("parent", {
      nullable: true,
      subGraphs: ["graphql"],
      description: "The work order this one sub-contracts; null when there is none or the key may not read it",
      query: relationQuery(workOrderScope),
    }),
    notes: t.relatedConnection(
      "notes",
      {
        ...connectionLimits,
        cursor: "id",
        subGraphs: ["graphql"],
        description:
          "The root buyer-supplier thread, oldest first (notes(last: 3) for the latest three); reading never marks it read (markWorkOrderNotesRead does)",
        totalCount: true,
        query: { where: { thread: "root" }, orderBy: [{ noteAddedAt: "asc" }, { id: "asc" }] },
      },
      ...connectionTypes("A page of a work order's root thread", "A note of the thread and its cursor"),
    ),
  }),
});

// Work orders reached from a location or an asset: the key's own scope applies, newest first.
const RELATED_WORK_ORDERS = relationQuery(workOrderScope, [{ createdAt: "desc" as const }, { id: "desc" as const }]);

builder.prismaObjectField("Location", "workOrders", (t) =>
  t.relatedConnection(
    "workOrders",
    {
      ...connectionLimits,
      cursor: "id",
      subGraphs: ["graphql"],
      description: "Work orders at the location that the key may read, newest first",
      totalCount: true,
      query: RELATED_WORK_ORDERS,
    },
    ...connectionTypes("A page of a location's work orders", "A work order and its cursor"),
  ),
);

builder.prismaObjectField("Asset", "workOrders", (t) =>
  t.relatedConnection(
    "workOrders",
    {
      ...connectionLimits,
      cursor: "id",
      subGraphs: ["graphql"],
      description: "Work orders on the asset that the key may read, newest first",
      totalCount: true,
      query: RELATED_WORK_ORDERS,
    },
    ...connectionTypes("A page of an asset's work orders", "A work order and its cursor"),
  ),
);

export const WorkOrderPage = pageType("WorkOrder", WorkOrderRef);

export const WorkOrderNoteRef = builder.prismaObject("WorkOrderNote", {
  description: "A note of a work order's root buyer-supplier thread",
  fields: (t) => ({
    id: t.exposeInt("id"),
    workOrderId: t.exposeInt("workOrderId"),
    text: t.exposeString("text"),
    noteAddedBy: t.exposeString("noteAddedBy"),
    noteAddedAt: t.expose("noteAddedAt", { type: "DateTime", description: "Set by the server clock" }),
    photo: t.exposeString("photo", { nullable: true }),
    video: t.exposeString("video", { nullable: true }),
    audio: t.exposeString("audio", { nullable: true }),
    otherFile: t.exposeString("otherFile", { nullable: true }),
    elements: t.expose("elements", {
      type: "JSON",
      description: 'Structured elements; a tagged user is {"type": "user", "email": …}',
    }),
  }),
});

export const WorkOrderNotePage = pageType("WorkOrderNote", WorkOrderNoteRef);

export const ProblemTypeRef = builder.prismaNode("ProblemType", {
  ...scopedNode(problemTypeScope),
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    buyerCompanyId: t.exposeInt("buyerCompanyId"),
  }),
});

export const ProblemTypePage = pageType("ProblemType", ProblemTypeRef);

export const TransitionRowRef = builder.objectRef<TransitionRow>("WorkOrderTransition").implement({
  subGraphs: ["graphql"],
  description:
    "One row of the work order lifecycle: the action, who may take it, from which statuses, and where it can lead.",
  fields: (t) => ({
    action: t.exposeString("action"),
    actor: t.exposeString("actor"),
    from: t.field({ type: [WorkOrderStatusEnum], description: "Empty for create", resolve: (r) => [...r.from] }),
    to: t.field({ type: [WorkOrderStatusEnum], resolve: (r) => [...r.to] }),
  }),
});

// ---- write bodies

// buyerCompanyId and buyerFacilityId are required by the contract on this endpoint and checked against
// the key; every other company-owned field is derived or checked the same way.
export const WorkOrderInput = builder.inputType("WorkOrderInput", {
  fields: (t) => ({
    id: t.int({ description: "Updates this existing work order (upsert); never changes its status or supplier" }),
    title: t.string({ required: true }),
    locationId: t.int({ required: true }),
    problemTypeId: t.int({ required: true }),
    buyerFacilityId: t.int({ required: true, description: "A facility of the key's company" }),
    buyerCompanyId: t.int({ required: true, description: "Must be the key's company" }),
    createdBy: t.string({ required: true, description: "Email of the creator" }),
    status: t.field({
      type: WorkOrderStatusEnum,
      description:
        "Unassigned, PendingApproval or PendingConfirmationByServiceProvider; resolved against company configuration",
    }),
    supplierFacilityId: t.int({ description: "A supplier with a live relationship to the company" }),
    assetId: t.int({ description: "An asset at the location" }),
    subAssetIds: t.intList({ description: "Sub-assets of assetId" }),
    needApproval: t.boolean({
      description: "Overrides the company's serviceRequestsNeedApproval (response field: needsApproval)",
    }),
    walkThroughId: t.int({ description: "Together with siteSurveyTaskTitleId" }),
    siteSurveyTaskTitleId: t.int({ description: "A task of the walkthrough's survey" }),
    includeWalkthroughTaskList: t.boolean({
      description: "On create: appends the walkthrough's tasks and answers to the description",
    }),
    isPM: t.boolean({ description: "Defaults to true when plannedMaintenanceScheduleId is given" }),
    plannedMaintenanceScheduleId: t.int(),
    description: t.string(),
    poNumber: t.string(),
    woPriority: t.int({ description: "Expected resolution time in hours" }),
  }),
});

export const SupplierWorkOrderInput = builder.inputType("SupplierWorkOrderInput", {
  description: "A work order opened by a supplier at a location of a related buyer; the buyer approves it.",
  fields: (t) => ({
    title: t.string({ required: true }),
    locationId: t.int({ required: true, description: "A location of a buyer related to the key's facility" }),
    problemTypeId: t.int({ required: true }),
    description: t.string(),
    assetId: t.int(),
    subAssetIds: t.intList(),
    poNumber: t.string(),
    woPriority: t.int({ description: "Expected resolution time in hours" }),
  }),
});

export const WorkOrderPatchInput = builder.inputType("WorkOrderPatchInput", {
  description: "Only supplierFacilityId and supplierPrimaryContactEmail are read; other fields are ignored.",
  fields: (t) => ({
    supplierFacilityId: t.int({ description: "A new supplier reassigns the work order; the current one is a no-op" }),
    supplierPrimaryContactEmail: t.string({ description: "Applies only together with a supplier change" }),
  }),
});

const ActionNoteInput = builder.inputType("WorkOrderActionNoteInput", {
  description: "A note for the root buyer-supplier thread (check_in / check_out: the service call's note)",
  fields: (t) => ({
    text: t.string({ required: true }),
    noteAddedBy: t.string({ required: true }),
  }),
});

export const BuyerActionInput = builder.inputType("WorkOrderBuyerActionInput", {
  fields: (t) => ({
    id: t.int({ required: true, description: "The work order" }),
    note: t.field({ type: ActionNoteInput }),
  }),
});

export const SupplierActionInput = builder.inputType("WorkOrderSupplierActionInput", {
  fields: (t) => ({
    id: t.int({ required: true, description: "The work order" }),
    note: t.field({ type: ActionNoteInput }),
    technicianEmail: t.string({
      description: "assign_tech (required); check_in (required unless a technician is assigned)",
    }),
    scheduledAt: t.field({ type: "DateTime", description: "schedule, reschedule (required)" }),
    // Not an enum in OpenAPI: the body is shared by every supplier action and only check_out reads it.
    outcome: t.string({ description: "check_out (required): completed or incomplete" }),
    reason: t.string({ description: "check_out (required when incomplete)" }),
  }),
});

export const AppendNoteInput = builder.inputType("WorkOrderAppendNoteInput", {
  fields: (t) => ({
    id: t.int({ required: true, description: "The work order" }),
    // JSON rather than input types: unknown keys of a note are ignored and the messages are the contract's.
    note: t.field({
      type: "JSON",
      description:
        "{text, noteAddedBy (email), photo?, video?, audio?, otherFile?, elements?}; noteAddedAt is the server's",
    }),
    taggedUsers: t.field({
      type: "JSON",
      description: `Emails (at most ${MAX_TAGGED_USERS}) to tag in the note and subscribe`,
    }),
  }),
});

export const AppendPhotoNotesInput = builder.inputType("WorkOrderAppendPhotoNotesInput", {
  fields: (t) => ({
    id: t.int({ required: true, description: "The work order" }),
    notes: t.field({
      type: "JSON",
      description: `1 to ${MAX_BULK_NOTES} notes of one photo URL each ({photo, noteAddedBy?})`,
    }),
  }),
});
