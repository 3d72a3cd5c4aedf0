// Changes to an existing work order: the buyer's PATCH (reassignment) and the status actions of both
// sides. Each runs in one transaction that locks the work order, checks the transition table, does what
// the action adds (service calls, approval details, the next supplier…), applies the table row through
// changeStatus and appends the optional note. Any error rolls everything back.
import type { Prisma, Tx } from "../../../db.ts";
import { badInput, conflict } from "../../core/errors.ts";
import { emailOf } from "../../core/email.ts";
import type { Context } from "../../core/context.ts";
import { WORK_ORDER_STATES, type TransitionFacts } from "./state-machine.ts";
import {
  actorOf,
  FOR_CHANGE,
  lockForChange,
  writableScope,
  type WorkOrderActor,
  type WorkOrderForChange,
} from "./scope.ts";
import { changeStatus, factsOf } from "./status.ts";
import { appendRootNotes, type NoteInput } from "./notes.ts";
import { refreshSearchVector } from "../search/vector.ts";
import { currencyData, dispatchableSupplier } from "./create.ts";
import { checkContactEmails } from "./contacts.ts";
import { inTransaction } from "../../core/transaction.ts";
import { nextRankedSupplier } from "../../supplier-network/public.ts";

export interface WorkOrderPatch {
  supplierFacilityId?: number | null;
  supplierPrimaryContactEmail?: string | null;
}

/**
 * PATCH /work_orders/{id}: a new supplierFacilityId reassigns the work order (the old supplier sees
 * `Rejected`); the current one, or supplierPrimaryContactEmail alone, is a no-op. The contact is checked
 * whenever it is given (a contact of the new supplier, or of the current one for a no-op), so another
 * tenant's contact is refused even where it would not be stored.
 */
export function updateWorkOrder(ctx: Context, id: number, input: WorkOrderPatch, query: object) {
  return inTransaction(ctx.db, async (tx) => {
    const wo = await lockForChange(tx, id, writableScope(ctx.viewer));
    const target = input.supplierFacilityId;
    if (target === null)
      throw badInput("supplierFacilityId cannot be cleared; assign another supplier or cancel the work order");
    const reassigning = target !== undefined && target !== wo.supplierFacilityId;
    const contact =
      input.supplierPrimaryContactEmail == null
        ? null
        : emailOf(input.supplierPrimaryContactEmail, "supplierPrimaryContactEmail");
    if (contact)
      await checkContactEmails(tx, [{ field: "supplierPrimaryContactEmail", email: contact }], {
        buyerCompanyId: null,
        supplierFacilityIds: [reassigning ? target : wo.supplierFacilityId],
      });
    if (reassigning) {
      const actor = actorOf(ctx.viewer);
      WORK_ORDER_STATES.allowed("reassign", actor.kind, wo.status);
      const supplier = await dispatchableSupplier(tx, wo.buyerCompanyId, target);
      const now = ctx.now();
      await changeStatus(tx, wo, {
        action: "reassign",
        actor,
        now,
        facts: factsOf(wo),
        data: {
          supplierFacilityId: target,
          supplierPrimaryContactEmail: contact,
          assignedAt: now,
          ...(await currencyData(tx, wo.locationId, supplier.currency)),
        },
        // The events relay turns this into the old supplier's intermediate `Rejected` update.
        previousSupplierFacilityId: wo.supplierFacilityId,
      });
    }
    return tx.workOrder.findUniqueOrThrow({ ...query, where: { id } });
  });
}

// ---- Status actions: PATCH /work_orders/{action}

export interface ActionInput {
  id: number;
  note?: NoteInput | null;
  technicianEmail?: string | null;
  scheduledAt?: Date | null;
  outcome?: string | null;
  reason?: string | null;
}

interface Step {
  tx: Tx;
  wo: WorkOrderForChange;
  input: ActionInput;
  /** input.technicianEmail, checked to be the acting supplier's (or no account's) whatever the action. */
  technician: string | null;
  actor: WorkOrderActor;
  now: Date;
}

/** What an action adds to the bare table row. */
interface Effect {
  facts?: Partial<TransitionFacts>;
  data?: Prisma.WorkOrderUncheckedUpdateInput;
  previousSupplierFacilityId?: number | null;
  /** The note became the service call's check-in/check-out note instead of a root-thread note. */
  serviceCallNote?: boolean;
}

/** The call a technician is on now or will be next: the latest one not checked out. */
const openCall = (tx: Tx, workOrderId: number) =>
  tx.serviceCall.findFirst({ where: { workOrderId, checkOutAt: null }, orderBy: { id: "desc" } });

async function updateOpenCall(tx: Tx, workOrderId: number, data: Prisma.ServiceCallUncheckedUpdateInput) {
  const open = await openCall(tx, workOrderId);
  if (open) await tx.serviceCall.update({ where: { id: open.id }, data });
  else await tx.serviceCall.create({ data: { ...(data as Prisma.ServiceCallUncheckedCreateInput), workOrderId } });
}

/**
 * The next private-network supplier by rank for the work order's location and problem type (the
 * supplier network's ranking), skipping the decliner and every supplier that declined this work order
 * before. Runs under the work order's row lock, so two declines of one work order never race.
 */
async function nextSupplierFor(tx: Tx, wo: WorkOrderForChange) {
  // Every supplier that declined this work order before (recorded on its statusChanges entries).
  const declines = await tx.workOrderStatusChange.findMany({
    where: { workOrderId: wo.id, action: "decline", supplierFacilityId: { not: null } },
    select: { supplierFacilityId: true },
  });
  const excluded = [wo.supplierFacilityId, ...declines.map((d) => d.supplierFacilityId)].filter(
    (id): id is number => typeof id === "number",
  );
  return nextRankedSupplier(tx, {
    buyerCompanyId: wo.buyerCompanyId,
    locationId: wo.locationId,
    problemTypeId: wo.problemTypeId,
    excludeSupplierFacilityIds: excluded,
  });
}

/** A technician of the acting supplier (or someone without an account), never another tenant's contact. */
async function technicianOf(tx: Tx, wo: WorkOrderForChange, raw: string): Promise<string> {
  const email = emailOf(raw, "technicianEmail");
  await checkContactEmails(tx, [{ field: "technicianEmail", email }], {
    buyerCompanyId: null,
    supplierFacilityIds: [wo.supplierFacilityId],
  });
  return email;
}

const required = <T>(value: T | null | undefined, message: string): T => {
  if (value === null || value === undefined || (typeof value === "string" && !value.trim())) throw badInput(message);
  return value;
};

const schedule = async ({ tx, wo, input }: Step): Promise<Effect> => {
  await updateOpenCall(tx, wo.id, { scheduledAt: required(input.scheduledAt, "scheduledAt is required") });
  return {};
};

/** Per-action work beyond the table row; actions not listed (confirm, en_route, arrive, …) add nothing. */
const EXTRA: Record<string, (step: Step) => Promise<Effect>> = {
  approve: async ({ actor, now }) => ({ data: { approvedBy: actor.email, approvedAt: now } }),

  cancel: async ({ tx, wo }) => {
    if (!wo.buyerCompany.cancellationLock) return {};
    // Lock the sub-contracted work orders too: a check-in on one of them waits for this cancel (or the
    // reverse), so the lock cannot be slipped past by a concurrent check-in.
    await tx.$queryRaw`SELECT id FROM "WorkOrder" WHERE "parentWorkOrderId" = ${wo.id} FOR UPDATE`;
    const onSite = await tx.serviceCall.findFirst({
      where: {
        checkInAt: { not: null },
        checkOutAt: null,
        workOrder: { OR: [{ id: wo.id }, { parentWorkOrderId: wo.id }] },
      },
      orderBy: { checkInAt: "desc" },
    });
    if (onSite) {
      const who = onSite.technicianEmail ? `technician ${onSite.technicianEmail} is` : "a technician is";
      throw conflict(`work order ${wo.id} cannot be cancelled while ${who} checked in (cancellation lock)`);
    }
    return {};
  },

  decline: async ({ tx, wo, now }) => {
    const next = wo.buyerCompany.declineAutoPick ? await nextSupplierFor(tx, wo) : null;
    const supplier = {
      supplierFacilityId: next?.id ?? null,
      supplierPrimaryContactEmail: null,
      assignedAt: next ? now : null,
    };
    const data = { ...supplier, ...(await currencyData(tx, wo.locationId, next?.currency ?? null)) };
    if (!next) return { data };
    return { data, facts: { nextSupplierFound: true }, previousSupplierFacilityId: wo.supplierFacilityId };
  },

  assign_tech: async ({ tx, wo, technician }) => {
    await updateOpenCall(tx, wo.id, { technicianEmail: required(technician, "technicianEmail is required") });
    return {};
  },

  schedule,
  reschedule: schedule,

  check_in: async ({ tx, wo, input, technician, now }) => {
    const technicianEmail = required(
      technician ?? (await openCall(tx, wo.id))?.technicianEmail,
      "technicianEmail is required: no technician is assigned",
    );
    await updateOpenCall(tx, wo.id, { technicianEmail, checkInAt: now, checkInNote: input.note?.text ?? null });
    return { serviceCallNote: true };
  },

  check_out: async ({ tx, wo, input, now }) => {
    const outcome = input.outcome;
    if (outcome !== "completed" && outcome !== "incomplete")
      throw badInput('outcome must be "completed" or "incomplete"');
    if (outcome === "incomplete") required(input.reason, "reason is required when the outcome is incomplete");
    const onSite = await tx.serviceCall.findFirst({
      where: { workOrderId: wo.id, checkInAt: { not: null }, checkOutAt: null },
      orderBy: { id: "desc" },
    });
    if (!onSite) throw badInput(`no technician is checked in on work order ${wo.id}`);
    await tx.serviceCall.update({
      where: { id: onSite.id },
      data: { checkOutAt: now, checkOutNote: input.note?.text ?? null, outcome, reason: input.reason ?? null },
    });
    return { facts: { outcome }, serviceCallNote: true };
  },
};

/** PATCH /work_orders/{action}: one status action, in one transaction (see the file comment). */
export async function runAction(ctx: Context, action: string, input: ActionInput, query: object) {
  if (input.note) required(input.note.text, "note.text must not be blank");
  const actor = actorOf(ctx.viewer);
  const now = ctx.now();
  return inTransaction(ctx.db, async (tx) => {
    const wo = await lockForChange(tx, input.id, writableScope(ctx.viewer));
    WORK_ORDER_STATES.allowed(action, actor.kind, wo.status);
    const technician = input.technicianEmail?.trim() ? await technicianOf(tx, wo, input.technicianEmail) : null;
    const effect = (await EXTRA[action]?.({ tx, wo, input, technician, actor, now })) ?? {};
    await changeStatus(tx, wo, {
      action,
      actor,
      now,
      facts: { ...factsOf(wo), ...effect.facts },
      data: effect.data,
      previousSupplierFacilityId: effect.previousSupplierFacilityId,
    });
    if (effect.serviceCallNote) await refreshSearchVector(tx, wo.id);
    else if (input.note) {
      // Reloaded: the note's event goes to the recipients after the change (e.g. the next supplier).
      const changed = await tx.workOrder.findUniqueOrThrow({ where: { id: wo.id }, include: FOR_CHANGE });
      await appendRootNotes(tx, changed, [input.note], {
        now,
        addedByName: actor.name,
        formerSupplierFacilityId: wo.supplierFacilityId,
      });
    }
    return tx.workOrder.findUniqueOrThrow({ ...query, where: { id: wo.id } });
  });
}
