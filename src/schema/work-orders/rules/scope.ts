// Who sees and who may change which work order: one scope for every read and write, in its Prisma form
// and its SQL form (the full-text list), kept together; and the row lock every change takes.
import { Prisma, type Tx } from "../../../db.ts";
import type { Viewer } from "../../core/viewer.ts";
import { lockWritable } from "../../core/tenancy.ts";
import type { ActorKind } from "./state-machine.ts";

/**
 * Buyer keys see their company's work orders. Supplier keys see those assigned to their facility, except
 * while the buyer's internal approval is pending (they become visible on reaching
 * PendingConfirmationByServiceProvider), and those whose visibility list names their facility.
 */
export function workOrderScope(viewer: Viewer): Prisma.WorkOrderWhereInput {
  if (viewer.kind === "buyer") return { buyerCompanyId: viewer.buyerCompanyId! };
  const facility = viewer.supplierFacilityId ?? -1;
  return {
    OR: [
      { supplierFacilityId: facility, status: { not: "PendingApproval" } },
      { visibleTo: { some: { supplierFacilityId: facility } } },
    ],
  };
}

/** The same scope as SQL over `"WorkOrder" w`, for the full-text list (list.ts). */
export function workOrderScopeSql(viewer: Viewer): Prisma.Sql {
  if (viewer.kind === "buyer") return Prisma.sql`w."buyerCompanyId" = ${viewer.buyerCompanyId ?? -1}`;
  const facility = viewer.supplierFacilityId ?? -1;
  return Prisma.sql`((w."supplierFacilityId" = ${facility} AND w.status <> 'PendingApproval')
    OR EXISTS (SELECT 1 FROM "WorkOrderVisibility" v WHERE v."workOrderId" = w.id AND v."supplierFacilityId" = ${facility}))`;
}

/**
 * What a key may change: buyers their company's work orders, suppliers only those assigned to their own
 * facility (a visibility-list supplier reads but never acts).
 */
export function writableScope(viewer: Viewer): Prisma.WorkOrderWhereInput {
  const scope = workOrderScope(viewer);
  return viewer.kind === "buyer" ? scope : { AND: [scope, { supplierFacilityId: viewer.supplierFacilityId ?? -1 }] };
}

/** Who acts on a work order: the kind the transition table checks, and who is recorded and told. */
export interface WorkOrderActor {
  kind: ActorKind;
  /** Display name (changedBy / addedBy in events). */
  name: string;
  email: string;
}

export const actorOf = (viewer: Viewer): WorkOrderActor => ({
  kind: viewer.kind === "buyer" ? "buyer" : "supplier",
  name: viewer.displayName,
  email: viewer.email,
});

export const FOR_CHANGE = {
  buyerCompany: {
    select: { name: true, cancellationLock: true, declineAutoPick: true, serviceRequestsNeedApproval: true },
  },
  location: { select: { name: true } },
  visibleTo: { select: { supplierFacilityId: true } },
} satisfies Prisma.WorkOrderInclude;

export type WorkOrderForChange = Prisma.WorkOrderGetPayload<{ include: typeof FOR_CHANGE }>;

/** The tenants a work order involves: its buyer company, its supplier and the suppliers it is visible to. */
export const relatedTo = (wo: WorkOrderForChange) => ({
  buyerCompanyId: wo.buyerCompanyId,
  supplierFacilityIds: [wo.supplierFacilityId, ...wo.visibleTo.map((v) => v.supplierFacilityId)],
});

/**
 * The work order a change takes, locked for the rest of the transaction (concurrent actions on one work
 * order run one after the other) with what a change needs. Not in scope, or absent: the same 400.
 */
export const lockForChange = (tx: Tx, id: number, scope: Prisma.WorkOrderWhereInput) =>
  lockWritable<WorkOrderForChange>(tx, "WorkOrder", "work order", id, scope, { include: FOR_CHANGE });
