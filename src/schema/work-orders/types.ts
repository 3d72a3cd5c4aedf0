// The work order's GraphQL types: the work order (masked for third-party suppliers), its notes, status
// history and service calls, problem types, the published transition table, and the write bodies.
import { builder } from "../core/builder.ts";
import { closedSet } from "../core/interfaces.ts";
import { masked } from "../core/masking.ts";
import { scopedNode } from "../core/node.ts";
import { workOrderScope } from "./rules/scope.ts";
import { problemTypeScope } from "./rules/problem-types.ts";
import { connectionLimits, connectionTypes } from "../core/connection.ts";
import { relationQuery, rowsInScope, scopedRelation } from "../core/relations.ts";
import type { ProblemType } from "../../generated/prisma/client.ts";
import { pageType } from "../core/list.ts";
import { moneyText } from "../core/values.ts";
import { STATUSES, TRANSITION_ROWS, type TransitionRow } from "./rules/state-machine.ts";
import { MAX_BULK_NOTES, MAX_TAGGED_USERS } from "./rules/notes.ts";
import { describedValues } from "../core/enums.ts";

// Closed sets kept as strings in GraphQL, documented as enums in OpenAPI (src/rest/openapi.ts).
const ACTIONS = [...new Set(TRANSITION_ROWS.map((r) => r.action))];
const ACTOR_KINDS = ["buyer", "supplier", "system"];
const OUTCOMES = ["completed", "incomplete"];

export const WorkOrderStatusEnum = builder.enumType("WorkOrderStatus", {
  description: "Where a work order is in its lifecycle (docs/work-order-lifecycle.md)",
  values: describedValues(STATUSES, {
    Unassigned: "Approved (or needing no approval) but no supplier assigned yet",
    PendingApproval: "Waiting for the buyer's internal approval; hidden from the assigned supplier until approved",
    PendingConfirmationByServiceProvider: "Assigned to a supplier facility, waiting for it to confirm or decline",
    SupplierInitiatedPendingApproval: "Opened by a supplier at a buyer location, waiting for the buyer's approval",
    ConfirmedByServiceProvider: "The supplier accepted the work (confirm)",
    TechAssigned: "The supplier named the technician (assign_tech)",
    TechScheduled: "A visit is scheduled (schedule)",
    TechRescheduled: "The scheduled visit was moved (reschedule)",
    TechEnRoute: "The technician is on the way (en_route)",
    TechWaitingOnSite: "The technician arrived and waits on site (arrive)",
    TechWorkingOnSite: "The technician is checked in and working (check_in)",
    WorkIncompleteWithReason: "Checked out with the work incomplete; the reason is on the service call",
    WaitingForReview: "Checked out with the work completed, waiting for the buyer's review (display status Completed)",
    WorkUnsatisfactory: "The buyer found the work unsatisfactory; the supplier comes back to it",
    WorkReviewedAndCompleted: "The buyer accepted the work (display status Completed)",
    CancelledWithReason: "Cancelled by the buyer; final",
    PaymentMade: "An invoice of the work order was marked paid; final (display status Completed)",
    Rejected:
      "Never stored: the intermediate status the old supplier's webhook carries when the work order is reassigned away",
  }),
});

builder.prismaObject("WorkOrderStatusChange", {
  fields: (t) => ({
    from: t.field({
      type: WorkOrderStatusEnum,
      nullable: true,
      resolve: (c) => c.from,
      description: "Status before the change; null for the create entry",
    }),
    to: t.field({
      type: WorkOrderStatusEnum,
      resolve: (c) => c.to,
      description: "Status after the change (may equal from, e.g. a reschedule from TechRescheduled)",
    }),
    action: t.exposeString("action", {
      extensions: closedSet(ACTIONS),
      description:
        "The lifecycle action taken (create, approve, reassign, confirm, decline, assign_tech, schedule, reschedule, en_route, arrive, check_in, check_out, work_reviewed_and_completed, work_unsatisfactory, cancel, invoice_paid)",
    }),
    actor: t.exposeString("actor", {
      description: 'Display name of who took the action (a contact, or e.g. "Planned maintenance" for the system)',
    }),
    actorKind: t.exposeString("actorKind", {
      extensions: closedSet(ACTOR_KINDS),
      description: "Who took the action: buyer, supplier or system",
    }),
    at: t.expose("at", { type: "DateTime", description: "When the change was made" }),
  }),
  description: "One entry of a work order's status history, written by every lifecycle action (creation included)",
});

builder.prismaObject("ServiceCall", {
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The service call's id (what an invoice's serviceCallIds name)" }),
    technicianEmail: t.exposeString("technicianEmail", {
      nullable: true,
      description: "Email of the technician assigned or checked in; null until one is given",
    }),
    scheduledAt: t.expose("scheduledAt", {
      type: "DateTime",
      nullable: true,
      description: "When the visit is scheduled (schedule, reschedule); null when never scheduled",
    }),
    checkInAt: t.expose("checkInAt", {
      type: "DateTime",
      nullable: true,
      description: "When the technician checked in on site; null before check-in",
    }),
    checkInNote: t.exposeString("checkInNote", {
      nullable: true,
      description: "The note sent with check_in; null when none",
    }),
    checkOutAt: t.expose("checkOutAt", {
      type: "DateTime",
      nullable: true,
      description: "When the technician checked out; null while on site or before check-in",
    }),
    checkOutNote: t.exposeString("checkOutNote", {
      nullable: true,
      description: "The note sent with check_out; null when none",
    }),
    outcome: t.exposeString("outcome", {
      nullable: true,
      extensions: closedSet(OUTCOMES),
      description: "Outcome given at check_out: completed or incomplete; null before check-out",
    }),
    reason: t.exposeString("reason", {
      nullable: true,
      description: "Why the work is incomplete (check_out with outcome incomplete); null otherwise",
    }),
  }),
  description:
    "One technician visit of a work order, opened by assign_tech, schedule or check_in and closed by check_out",
});

export const WorkOrderRef = builder.prismaNode("WorkOrder", {
  ...scopedNode(workOrderScope),
  // Buyer-private for third-party supplier keys (docs/decisions.md#masking): budget codes, internal notes,
  // approval details and the buyer subscriber list.
  extensions: masked({
    thirdParty: ["nte", "glCode", "costCenter", "internalNotes", "approvedBy", "approvedAt", "subscribers"],
  }),
  // biome-ignore lint/complexity/noExcessiveLinesPerFunction: a declarative field list, one described field after another
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The work order's id" }),
    title: t.exposeString("title", { description: "Short title of the work" }),
    description: t.exposeString("description", {
      nullable: true,
      description:
        "Longer description of the work (with the walkthrough task list appended when asked); null when none",
    }),
    status: t.expose("status", { type: WorkOrderStatusEnum, description: "Current lifecycle status" }),
    locationId: t.exposeInt("locationId", { description: "Id of the location where the work is done" }),
    problemTypeId: t.exposeInt("problemTypeId", {
      description: "Id of the problem type (the buyer's classification of the work)",
    }),
    buyerFacilityId: t.exposeInt("buyerFacilityId", {
      description: "Id of the buyer facility that owns the work order",
    }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", { description: "Id of the buyer company that owns the work order" }),
    createdBy: t.exposeString("createdBy", {
      description: "Email of the contact who created the work order (trimmed, lowercased)",
    }),
    supplierFacilityId: t.exposeInt("supplierFacilityId", {
      nullable: true,
      description: "Id of the assigned supplier facility; null while unassigned",
    }),
    supplierPrimaryContactEmail: t.exposeString("supplierPrimaryContactEmail", {
      nullable: true,
      description: "Email of the supplier contact named in the last reassignment; null when none was given",
    }),
    assetId: t.exposeInt("assetId", { nullable: true, description: "Id of the main asset worked on; null when none" }),
    subAssetIds: t.exposeIntList("subAssetIds", {
      description: "Ids of sub-assets of the main asset worked on; empty when none",
    }),
    needsApproval: t.exposeBoolean("needsApproval", {
      description:
        "Whether the work order needed the buyer's approval before going to the supplier (the create body's needApproval, resolved)",
    }),
    isPM: t.exposeBoolean("isPM", {
      description: "Whether the work order was produced by a planned maintenance schedule",
    }),
    plannedMaintenanceScheduleId: t.exposeInt("plannedMaintenanceScheduleId", {
      nullable: true,
      description: "Id of the planned maintenance schedule that produced it; null otherwise",
    }),
    walkThroughId: t.exposeInt("walkThroughId", {
      nullable: true,
      description: "Id of the walkthrough (site survey) the work order came from; null otherwise",
    }),
    siteSurveyTaskTitleId: t.exposeInt("siteSurveyTaskTitleId", {
      nullable: true,
      description: "Id of the survey task the work order came from; set together with walkThroughId, else null",
    }),
    includeWalkthroughTaskList: t.exposeBoolean("includeWalkthroughTaskList", {
      description: "Whether the walkthrough's task list was copied into the description on create",
    }),
    parentWorkOrderId: t.exposeInt("parentWorkOrderId", {
      nullable: true,
      description: "Id of the work order this one was sub-contracted from; null when it is not sub-contracted",
    }),
    poNumber: t.exposeString("poNumber", {
      nullable: true,
      description: "Purchase order number of the buyer; invoices default to it; null when none",
    }),
    woPriority: t.exposeInt("woPriority", { nullable: true, description: "Expected resolution time in hours" }),
    requestForProposalId: t.exposeInt("requestForProposalId", {
      nullable: true,
      description: "Proposals default to it",
    }),
    spendCategoryId: t.exposeInt("spendCategoryId", { nullable: true, description: "Invoices derive it" }),
    currencyId: t.exposeString("currencyId", {
      nullable: true,
      description: "Three-letter code of the supplier's currency when it differs from the location's; else null",
    }),
    locationCurrencyId: t.exposeString("locationCurrencyId", {
      nullable: true,
      description: "Three-letter code of the location's currency when it differs from the supplier's; else null",
    }),
    currencyExchangeRate: t.string({
      nullable: true,
      resolve: (w) => w.currencyExchangeRate?.toString() ?? null,
      description:
        "Decimal text of the rate from location currency to supplier currency used at assignment; null when the currencies match or no rate is stored",
    }),
    currencyExchangeRateAt: t.expose("currencyExchangeRateAt", {
      type: "DateTime",
      nullable: true,
      description: "When currencyExchangeRate took effect; null when it is null",
    }),
    nte: t.string({
      nullable: true,
      resolve: (w) => moneyText(w.nte),
      description:
        "Not-to-exceed amount, decimal text with two decimals; null when none, or masked for third-party supplier keys",
    }),
    glCode: t.exposeString("glCode", {
      nullable: true,
      description: "The buyer's general ledger code; null when none, or masked for third-party supplier keys",
    }),
    costCenter: t.exposeString("costCenter", {
      nullable: true,
      description: "The buyer's cost center; null when none, or masked for third-party supplier keys",
    }),
    internalNotes: t.exposeString("internalNotes", {
      nullable: true,
      description: "The buyer's internal notes; null when none, or masked for third-party supplier keys",
    }),
    approvedBy: t.exposeString("approvedBy", {
      nullable: true,
      description:
        "Email of the contact who approved the work order; null before approval, or masked for third-party supplier keys",
    }),
    approvedAt: t.expose("approvedAt", {
      type: "DateTime",
      nullable: true,
      description: "When the work order was approved; null before approval, or masked for third-party supplier keys",
    }),
    subscribers: t.stringList({
      description:
        "Emails on the buyer's subscriber list (note authors join it), alphabetical; null when masked for third-party supplier keys",
      nullable: true,
      select: { subscribers: { orderBy: { email: "asc" } } },
      resolve: (w) => w.subscribers.map((s) => s.email),
    }),
    statusChangedAt: t.expose("statusChangedAt", {
      type: "DateTime",
      description: "When the status history last got an entry",
    }),
    statusChanges: t.relation("statusChanges", {
      query: { orderBy: [{ at: "asc" }, { id: "asc" }] },
      description: "The status history, oldest first",
    }),
    assignedAt: t.expose("assignedAt", {
      type: "DateTime",
      nullable: true,
      description: "When the current supplier was assigned; null while unassigned",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the work order was created" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When the work order was last written" }),
    serviceCalls: t.relation("serviceCalls", {
      query: { orderBy: { id: "asc" } },
      description: "The technician visits, oldest first",
    }),
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
        ...scopedRelation(() => ({ thread: "root" as const }), [{ noteAddedAt: "asc" }, { id: "asc" }]),
      },
      ...connectionTypes("A page of a work order's root thread", "A note of the thread and its cursor"),
    ),
  }),
  description:
    "A request for maintenance work at a buyer location, assigned to a supplier facility and moved through the lifecycle in docs/work-order-lifecycle.md; buyer-private fields are null for third-party supplier keys",
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
    id: t.exposeInt("id", { description: "The note's id" }),
    workOrderId: t.exposeInt("workOrderId", { description: "Id of the work order whose thread holds the note" }),
    text: t.exposeString("text", { description: "Text of the note; empty for a photo-only note" }),
    noteAddedBy: t.exposeString("noteAddedBy", { description: "Email of the note's author" }),
    noteAddedAt: t.expose("noteAddedAt", { type: "DateTime", description: "Set by the server clock" }),
    photo: t.exposeString("photo", {
      nullable: true,
      description: "URL of a photo attached to the note; null when none",
    }),
    video: t.exposeString("video", {
      nullable: true,
      description: "URL of a video attached to the note; null when none",
    }),
    audio: t.exposeString("audio", {
      nullable: true,
      description: "URL of an audio recording attached to the note; null when none",
    }),
    otherFile: t.exposeString("otherFile", {
      nullable: true,
      description: "URL of another file attached to the note; null when none",
    }),
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
    id: t.exposeInt("id", { description: "The problem type's id" }),
    name: t.exposeString("name", { description: "Display name of the problem type" }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", {
      description: "Id of the buyer company that configured the problem type",
    }),
  }),
  description: "A buyer company's classification of work (e.g. Plumbing); work orders and supplier rankings use it",
});

export const ProblemTypePage = pageType("ProblemType", ProblemTypeRef);

export const TransitionRowRef = builder.objectRef<TransitionRow>("WorkOrderTransition").implement({
  subGraphs: ["graphql"],
  description:
    "One row of the work order lifecycle: the action, who may take it, from which statuses, and where it can lead.",
  fields: (t) => ({
    action: t.exposeString("action", {
      description: "The action's name (e.g. approve, check_in), as in the REST action paths",
    }),
    actor: t.exposeString("actor", { description: "Who may take the action: buyer, supplier or system" }),
    from: t.field({ type: [WorkOrderStatusEnum], description: "Empty for create", resolve: (r) => [...r.from] }),
    to: t.field({
      type: [WorkOrderStatusEnum],
      resolve: (r) => [...r.to],
      description: "Statuses the action can lead to; the facts pick one (see docs/work-order-lifecycle.md)",
    }),
  }),
});

// ---- write bodies

// buyerCompanyId and buyerFacilityId are required by the contract on this endpoint and checked against
// the key; every other company-owned field is derived or checked the same way.
export const WorkOrderInput = builder.inputType("WorkOrderInput", {
  description: "Body of a buyer work order create, or of an update when it carries an id",
  fields: (t) => ({
    id: t.int({ description: "Updates this existing work order (upsert); never changes its status or supplier" }),
    title: t.string({ required: true, description: "Short title of the work; required, not blank" }),
    locationId: t.int({ required: true, description: "A location of the key's company; required" }),
    problemTypeId: t.int({ required: true, description: "A problem type of the key's company; required" }),
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
    plannedMaintenanceScheduleId: t.int({
      description: "A planned maintenance schedule of the company that produced this work order",
    }),
    description: t.string({ description: "Longer description of the work" }),
    poNumber: t.string({ description: "The buyer's purchase order number" }),
    woPriority: t.int({ description: "Expected resolution time in hours" }),
  }),
});

export const SupplierWorkOrderInput = builder.inputType("SupplierWorkOrderInput", {
  description: "A work order opened by a supplier at a location of a related buyer; the buyer approves it.",
  fields: (t) => ({
    title: t.string({ required: true, description: "Short title of the work; required, not blank" }),
    locationId: t.int({ required: true, description: "A location of a buyer related to the key's facility" }),
    problemTypeId: t.int({ required: true, description: "A problem type of the location's buyer; required" }),
    description: t.string({ description: "Longer description of the work" }),
    assetId: t.int({ description: "An asset at the location" }),
    subAssetIds: t.intList({ description: "Sub-assets of assetId" }),
    poNumber: t.string({ description: "The buyer's purchase order number, when known" }),
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
    text: t.string({ required: true, description: "Text of the note; not blank" }),
    noteAddedBy: t.string({ required: true, description: "Email of the note's author" }),
  }),
});

export const BuyerActionInput = builder.inputType("WorkOrderBuyerActionInput", {
  description: "Body of a buyer status action (approve, cancel, work_reviewed_and_completed, work_unsatisfactory)",
  fields: (t) => ({
    id: t.int({ required: true, description: "The work order" }),
    note: t.field({ type: ActionNoteInput, description: "A note appended to the root thread with the action" }),
  }),
});

export const SupplierActionInput = builder.inputType("WorkOrderSupplierActionInput", {
  description:
    "Body of a supplier status action (confirm, decline, assign_tech, schedule, reschedule, en_route, arrive, check_in, check_out); each action reads its own fields",
  fields: (t) => ({
    id: t.int({ required: true, description: "The work order" }),
    note: t.field({
      type: ActionNoteInput,
      description:
        "A note appended to the root thread with the action; on check_in and check_out it becomes the service call's note",
    }),
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
  description: "Body of appending one note to a work order's root thread",
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
  description: "Body of appending several photo notes to a work order's root thread at once",
  fields: (t) => ({
    id: t.int({ required: true, description: "The work order" }),
    notes: t.field({
      type: "JSON",
      description: `1 to ${MAX_BULK_NOTES} notes of one photo URL each ({photo, noteAddedBy?})`,
    }),
  }),
});
