// Creating work orders: the buyer's POST (with upsert by id) and the supplier-initiated POST. See
// docs/work-order-lifecycle.md for the rules in prose.
import type { Prisma, Tx } from "../../../db.ts";
import { badInput, notWritable } from "../../core/errors.ts";
import { relatedBuyerCompanyWhere } from "../../core/tenancy.ts";
import { emailOf } from "../../core/email.ts";
import type { Context } from "../../core/context.ts";
import { subtreeIds } from "../../assets/public.ts";
import { writeEvent } from "../events.ts";
import { initialStatus, type Status } from "./state-machine.ts";
import { actorOf, FOR_CHANGE, workOrderScope, type WorkOrderActor } from "./scope.ts";
import { eventContext } from "./status.ts";
import { refreshSearchVector } from "../search/vector.ts";
import { checkContactEmails } from "./contacts.ts";
import { inTransaction } from "../../core/transaction.ts";

/** A supplier facility the company may dispatch to: a live relationship, or the company's own in-house team. */
export async function dispatchableSupplier(tx: Tx, buyerCompanyId: number, supplierFacilityId: number) {
  const facility = await tx.supplierFacility.findFirst({
    where: {
      id: supplierFacilityId,
      OR: [
        { buyerLinks: { some: { buyerCompanyId, deletedAt: null } } },
        { supplierCompany: { internalTeamOfId: buyerCompanyId } },
      ],
    },
    select: { id: true, currency: true },
  });
  if (!facility)
    throw badInput(`supplierFacilityId ${supplierFacilityId} is not a supplier facility of this company's network`);
  return facility;
}

/**
 * Cross-currency pricing columns: set when the supplier's currency differs from the location's (rate =
 * latest stored rate from the location's currency to the supplier's, null when none is stored), cleared
 * otherwise — including when no supplier is assigned.
 */
export async function currencyData(tx: Tx, locationId: number, supplierCurrency: string | null) {
  const { currency } = await tx.location.findUniqueOrThrow({ where: { id: locationId }, select: { currency: true } });
  if (supplierCurrency === null || supplierCurrency === currency) {
    return { currencyId: null, locationCurrencyId: null, currencyExchangeRate: null, currencyExchangeRateAt: null };
  }
  // Same query as GET /currency_exchange/latest, so integrators can reproduce the stored rate.
  const rate = await tx.currencyRate.findFirst({
    where: { base: currency, target: supplierCurrency },
    orderBy: { at: "desc" },
  });
  return {
    currencyId: supplierCurrency,
    locationCurrencyId: currency,
    currencyExchangeRate: rate?.rate ?? null,
    currencyExchangeRateAt: rate?.at ?? null,
  };
}

/** The fields both create paths read and check against the company. */
interface ReferenceFields {
  locationId: number;
  problemTypeId: number;
  assetId: number | null;
  subAssetIds: number[];
  plannedMaintenanceScheduleId: number | null;
  walkThroughId: number | null;
  siteSurveyTaskTitleId: number | null;
}

/**
 * Every referenced id must be the company's (one 400 naming each offending field). The main asset must
 * be at the work order's location and the sub-assets below it; the survey task must be a task of the
 * walkthrough's survey. Returns the walkthrough's task list as text ("- title: answer" lines).
 */
async function checkReferences(tx: Tx, companyId: number, f: ReferenceFields): Promise<string | null> {
  if ((f.walkThroughId === null) !== (f.siteSurveyTaskTitleId === null)) {
    throw badInput("walkThroughId and siteSurveyTaskTitleId must be given together or not at all");
  }
  const owned = { buyerCompanyId: companyId };
  // One after the other: a transaction is one connection, and pg refuses overlapping queries on it.
  const location = await tx.location.findFirst({ where: { id: f.locationId, ...owned }, select: { id: true } });
  const problemType = await tx.problemType.findFirst({
    where: { id: f.problemTypeId, ...owned },
    select: { id: true },
  });
  const asset =
    f.assetId === null
      ? null
      : await tx.asset.findFirst({ where: { id: f.assetId, ...owned }, select: { locationId: true } });
  const schedule =
    f.plannedMaintenanceScheduleId === null
      ? null
      : await tx.plannedMaintenanceSchedule.findFirst({
          where: { id: f.plannedMaintenanceScheduleId, ...owned },
          select: { id: true },
        });
  const walkthrough =
    f.walkThroughId === null
      ? null
      : await tx.walkthrough.findFirst({
          where: { id: f.walkThroughId, location: owned },
          select: { answers: true, survey: { select: { tasks: { orderBy: { id: "asc" } } } } },
        });
  const problems: string[] = [];
  if (!location) problems.push(`locationId ${f.locationId} is not a location of this company`);
  if (!problemType) problems.push(`problemTypeId ${f.problemTypeId} is not a problem type of this company`);
  if (f.assetId !== null) {
    if (!asset) problems.push(`assetId ${f.assetId} is not an asset of this company`);
    else if (asset.locationId !== f.locationId)
      problems.push(`assetId ${f.assetId} is not at location ${f.locationId}`);
  }
  if (f.subAssetIds.length) {
    const below = f.assetId !== null && asset ? (await subtreeIds(tx, f.assetId)).filter((id) => id !== f.assetId) : [];
    const stray = f.subAssetIds.filter((id) => !below.includes(id));
    if (stray.length)
      problems.push(`subAssetIds ${stray.join(", ")} are not sub-assets of assetId ${f.assetId ?? "(none given)"}`);
  }
  if (f.plannedMaintenanceScheduleId !== null && !schedule) {
    problems.push(`plannedMaintenanceScheduleId ${f.plannedMaintenanceScheduleId} is not a schedule of this company`);
  }
  if (f.walkThroughId !== null) {
    if (!walkthrough) problems.push(`walkThroughId ${f.walkThroughId} is not a walkthrough of this company`);
    else if (!walkthrough.survey.tasks.some((t) => t.id === f.siteSurveyTaskTitleId)) {
      problems.push(`siteSurveyTaskTitleId ${f.siteSurveyTaskTitleId} is not a task of walkthrough ${f.walkThroughId}`);
    }
  }
  if (problems.length) throw badInput(problems.join("; "));
  if (!walkthrough) return null;
  const answers = new Map(walkthrough.answers.map((a) => [a.taskId, a.answer]));
  return walkthrough.survey.tasks
    .map((t) => `- ${t.title}${answers.has(t.id) ? `: ${answers.get(t.id)}` : ""}`)
    .join("\n");
}

const withTaskList = (description: string | null, taskList: string) =>
  `${description ? `${description}\n\n` : ""}Walkthrough task list:\n${taskList}`;

/** Inserts the work order with its first statusChanges entry, the workorder.create event and the search vector. */
async function insertWorkOrder(
  tx: Tx,
  data: Omit<Prisma.WorkOrderUncheckedCreateInput, "statusChangedAt">,
  actor: WorkOrderActor,
  now: Date,
): Promise<number> {
  const wo = await tx.workOrder.create({ data: { ...data, statusChangedAt: now }, include: FOR_CHANGE });
  await tx.workOrderStatusChange.create({
    data: {
      workOrderId: wo.id,
      from: null,
      to: wo.status,
      action: "create",
      actor: actor.name,
      actorKind: actor.kind,
      at: now,
    },
  });
  await writeEvent(tx, "workorder.create", eventContext(wo), {
    oldStatus: null,
    newStatus: wo.status,
    changedBy: actor.name,
    changedAt: now.toISOString(),
    action: "create",
  });
  await refreshSearchVector(tx, wo.id);
  return wo.id;
}

const titleOf = (title: string) => {
  if (!title.trim()) throw badInput("title must not be blank");
  return title;
};

/** Statuses a create body may ask for; each is still resolved against the company configuration. */
const REQUESTABLE: readonly Status[] = ["Unassigned", "PendingApproval", "PendingConfirmationByServiceProvider"];

/** What an upsert keeps from the stored work order. */
const WRITABLE = {
  id: true,
  supplierFacilityId: true,
  assetId: true,
  subAssetIds: true,
  plannedMaintenanceScheduleId: true,
  walkThroughId: true,
  siteSurveyTaskTitleId: true,
  description: true,
  poNumber: true,
  woPriority: true,
  isPM: true,
  supplierFacility: { select: { currency: true } },
} satisfies Prisma.WorkOrderSelect;

const keep = <T>(value: T | null | undefined, stored: T | null): T | null => (value === undefined ? stored : value);

/** The buyer's create body as GraphQL hands it over: absent keys are undefined, explicit nulls are null. */
export interface WorkOrderInput {
  id?: number | null;
  title: string;
  locationId: number;
  problemTypeId: number;
  buyerFacilityId: number;
  buyerCompanyId: number;
  createdBy: string;
  status?: Status | null;
  supplierFacilityId?: number | null;
  assetId?: number | null;
  subAssetIds?: number[] | null;
  needApproval?: boolean | null;
  walkThroughId?: number | null;
  siteSurveyTaskTitleId?: number | null;
  includeWalkthroughTaskList?: boolean | null;
  isPM?: boolean | null;
  plannedMaintenanceScheduleId?: number | null;
  description?: string | null;
  poNumber?: string | null;
  woPriority?: number | null;
}

/**
 * POST /work_orders (buyer): creates, or with `id` updates the stored work order's fields (never its
 * status or supplier). Every referenced id is checked against the company; the initial status comes
 * from the lifecycle rules; the work order, its first statusChanges entry, ONE workorder.create event
 * and the search vector are written in one transaction.
 */
export async function createWorkOrder(ctx: Context, input: WorkOrderInput, query: object) {
  const companyId = ctx.viewer.buyerCompanyId!;
  if (input.buyerCompanyId !== companyId)
    throw badInput(`buyerCompanyId ${input.buyerCompanyId} is not this key's company`);
  if (input.status != null && !REQUESTABLE.includes(input.status)) {
    throw badInput(`status ${input.status} cannot be requested on create; allowed: ${REQUESTABLE.join(", ")}`);
  }
  const createdBy = emailOf(input.createdBy, "createdBy");
  const now = ctx.now();
  return inTransaction(ctx.db, async (tx) => {
    const stored =
      input.id == null
        ? null
        : await tx.workOrder.findFirst({
            where: { AND: [{ id: input.id }, workOrderScope(ctx.viewer)] },
            select: WRITABLE,
          });
    if (input.id != null && !stored) throw notWritable("work order", input.id);
    if (stored && input.supplierFacilityId != null && input.supplierFacilityId !== stored.supplierFacilityId) {
      throw badInput(
        `work order ${stored.id} is assigned to supplier facility ${stored.supplierFacilityId ?? "none"}; reassign with PATCH /work_order/work_orders/${stored.id}`,
      );
    }
    if (!(await tx.buyerFacility.findFirst({ where: { id: input.buyerFacilityId, buyerCompanyId: companyId } }))) {
      throw badInput(`buyerFacilityId ${input.buyerFacilityId} is not a facility of this company`);
    }
    // Optional fields: absent keeps the stored value on an upsert (the column default on create), null clears.
    const fields = {
      title: titleOf(input.title),
      locationId: input.locationId,
      problemTypeId: input.problemTypeId,
      buyerFacilityId: input.buyerFacilityId,
      assetId: keep(input.assetId, stored?.assetId ?? null),
      subAssetIds: keep(input.subAssetIds, stored?.subAssetIds ?? []) ?? [],
      plannedMaintenanceScheduleId: keep(
        input.plannedMaintenanceScheduleId,
        stored?.plannedMaintenanceScheduleId ?? null,
      ),
      walkThroughId: keep(input.walkThroughId, stored?.walkThroughId ?? null),
      siteSurveyTaskTitleId: keep(input.siteSurveyTaskTitleId, stored?.siteSurveyTaskTitleId ?? null),
      description: keep(input.description, stored?.description ?? null),
      poNumber: keep(input.poNumber, stored?.poNumber ?? null),
      woPriority: keep(input.woPriority, stored?.woPriority ?? null),
    };
    const isPM = input.isPM ?? stored?.isPM ?? fields.plannedMaintenanceScheduleId !== null;
    const taskList = await checkReferences(tx, companyId, fields);
    if (stored) {
      const currency = await currencyData(tx, fields.locationId, stored.supplierFacility?.currency ?? null);
      await tx.workOrder.update({ where: { id: stored.id }, data: { ...fields, ...currency, isPM } });
      await refreshSearchVector(tx, stored.id);
      return tx.workOrder.findUniqueOrThrow({ ...query, where: { id: stored.id } });
    }
    const id = await insertChecked(
      tx,
      companyId,
      {
        ...fields,
        isPM,
        createdBy,
        supplierFacilityId: input.supplierFacilityId ?? null,
        needApproval: input.needApproval,
        status: input.status,
        includeWalkthroughTaskList: input.includeWalkthroughTaskList,
      },
      taskList,
      actorOf(ctx.viewer),
      now,
    );
    return tx.workOrder.findUniqueOrThrow({ ...query, where: { id } });
  });
}

/** A new buyer-side work order: the POST's fields after the body checks (and what internal creators pass). */
export interface CompanyWorkOrder extends ReferenceFields {
  title: string;
  buyerFacilityId: number;
  createdBy: string;
  description: string | null;
  poNumber: string | null;
  woPriority: number | null;
  isPM: boolean;
  supplierFacilityId: number | null;
  needApproval?: boolean | null;
  status?: Status | null;
  includeWalkthroughTaskList?: boolean | null;
}

/** The create half of the buyer's POST, once the references are checked (taskList: checkReferences' answer). */
async function insertChecked(
  tx: Tx,
  companyId: number,
  input: CompanyWorkOrder,
  taskList: string | null,
  actor: WorkOrderActor,
  now: Date,
): Promise<number> {
  const { needApproval, status, includeWalkthroughTaskList: include, ...fields } = input;
  const includeWalkthroughTaskList = include ?? false;
  if (includeWalkthroughTaskList && taskList === null) throw badInput("includeWalkthroughTaskList needs walkThroughId");
  const supplier =
    input.supplierFacilityId === null ? null : await dispatchableSupplier(tx, companyId, input.supplierFacilityId);
  await checkContactEmails(tx, [{ field: "createdBy", email: input.createdBy }], {
    buyerCompanyId: companyId,
    supplierFacilityIds: [supplier?.id ?? null],
  });
  const company = await tx.buyerCompany.findUniqueOrThrow({
    where: { id: companyId },
    select: { serviceRequestsNeedApproval: true },
  });
  // needApproval overrides the company default; a requested PendingApproval asks for approval too.
  // Any other requested status is only a wish: the facts (approval, supplier) decide.
  const needsApproval = (needApproval ?? company.serviceRequestsNeedApproval) || status === "PendingApproval";
  return insertWorkOrder(
    tx,
    {
      ...fields,
      ...(await currencyData(tx, fields.locationId, supplier?.currency ?? null)),
      description: includeWalkthroughTaskList ? withTaskList(fields.description, taskList!) : fields.description,
      includeWalkthroughTaskList,
      buyerCompanyId: companyId,
      needsApproval,
      status: initialStatus({ actor: "buyer", needsApproval, hasSupplier: supplier !== null }),
      supplierFacilityId: supplier?.id ?? null,
      assignedAt: supplier ? now : null,
    },
    actor,
    now,
  );
}

/**
 * A work order of the company created by the service itself (planned maintenance): the buyer POST's
 * reference checks (400 naming each bad reference), initial status, supplier and currency rules, the
 * create entry, ONE workorder.create event and the search vector, in the caller's transaction.
 */
export async function createCompanyWorkOrder(
  tx: Tx,
  companyId: number,
  input: CompanyWorkOrder,
  actor: WorkOrderActor,
  now: Date,
): Promise<number> {
  return insertChecked(tx, companyId, input, await checkReferences(tx, companyId, input), actor, now);
}

export interface SupplierWorkOrderInput {
  title: string;
  locationId: number;
  problemTypeId: number;
  description?: string | null;
  assetId?: number | null;
  subAssetIds?: number[] | null;
  poNumber?: string | null;
  woPriority?: number | null;
}

/** POST /work_orders (supplier): a work order opened at a location of a related buyer, for the buyer to approve. */
export async function createSupplierWorkOrder(ctx: Context, input: SupplierWorkOrderInput, query: object) {
  const now = ctx.now();
  return inTransaction(ctx.db, async (tx) => {
    const location = await tx.location.findFirst({
      where: { id: input.locationId, buyerCompany: relatedBuyerCompanyWhere(ctx.viewer) },
      select: {
        buyerCompanyId: true,
        buyerCompany: { select: { facilities: { orderBy: { id: "asc" }, take: 1, select: { id: true } } } },
      },
    });
    if (!location)
      throw badInput(`locationId ${input.locationId} is not a location of a buyer related to this supplier`);
    const facility = location.buyerCompany.facilities[0];
    if (!facility) throw badInput("the buyer company has no facility to file the work order under");
    const fields = {
      title: titleOf(input.title),
      locationId: input.locationId,
      problemTypeId: input.problemTypeId,
      assetId: input.assetId ?? null,
      subAssetIds: input.subAssetIds ?? [],
      plannedMaintenanceScheduleId: null,
      walkThroughId: null,
      siteSurveyTaskTitleId: null,
    };
    await checkReferences(tx, location.buyerCompanyId, fields);
    const supplier = await tx.supplierFacility.findUniqueOrThrow({
      where: { id: ctx.viewer.supplierFacilityId! },
      select: { id: true, currency: true },
    });
    const id = await insertWorkOrder(
      tx,
      {
        ...fields,
        ...(await currencyData(tx, fields.locationId, supplier.currency)),
        description: input.description ?? null,
        poNumber: input.poNumber ?? null,
        woPriority: input.woPriority ?? null,
        buyerCompanyId: location.buyerCompanyId,
        buyerFacilityId: facility.id,
        createdBy: ctx.viewer.email,
        needsApproval: true,
        status: initialStatus({ actor: "supplier", needsApproval: true, hasSupplier: true }),
        supplierFacilityId: supplier.id,
        assignedAt: now,
      },
      actorOf(ctx.viewer),
      now,
    );
    return tx.workOrder.findUniqueOrThrow({ ...query, where: { id } });
  });
}
