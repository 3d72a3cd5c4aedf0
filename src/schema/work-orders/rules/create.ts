// Creating work orders: the buyer's POST (with upsert by id) and the supplier-initiated POST. See
// docs/work-order-lifecycle.md for the rules in prose.
import { Prisma, type Tx } from "../../../db.ts";
import { badInput, notWritable } from "../../core/errors.ts";
import { relatedBuyerCompanyWhere } from "../../core/tenancy.ts";
import { emailOf } from "../../core/email.ts";
import type { Context } from "../../core/context.ts";
import { subtreeIds } from "../../assets/public.ts";
import { writeEvent } from "../events.ts";
import { initialStatus, type Status } from "./state-machine.ts";
import { actorOf, workOrderScope, type WorkOrderActor } from "./scope.ts";
import { eventContext } from "./status.ts";
import { refreshSearchVector } from "../search/vector.ts";
import { contactsOutsideSql, type NamedEmail, refuseOutsideContacts } from "./contacts.ts";
import { inTransaction } from "../../core/transaction.ts";

/** A supplier facility the company may dispatch to: a live relationship, or the company's own in-house team. */
const dispatchableSql = (facility: Prisma.Sql, companyId: Prisma.Sql) => Prisma.sql`(
  EXISTS (SELECT 1 FROM "BuyerSupplierRelationship" b
           WHERE b."supplierFacilityId" = ${facility}.id AND b."buyerCompanyId" = ${companyId} AND b."deletedAt" IS NULL)
  OR EXISTS (SELECT 1 FROM "SupplierCompany" c
              WHERE c.id = ${facility}."supplierCompanyId" AND c."internalTeamOfId" = ${companyId}))`;

const notDispatchable = (supplierFacilityId: number) =>
  badInput(`supplierFacilityId ${supplierFacilityId} is not a supplier facility of this company's network`);

/** The supplier facility a reassignment dispatches to, when the company may (dispatchableSql); else a 400. */
export async function dispatchableSupplier(tx: Tx, buyerCompanyId: number, supplierFacilityId: number) {
  const [facility] = await tx.$queryRaw<{ id: number; currency: string }[]>`
    SELECT f.id, f.currency FROM "SupplierFacility" f
     WHERE f.id = ${supplierFacilityId} AND ${dispatchableSql(Prisma.sql`f`, Prisma.sql`${buyerCompanyId}::int`)}`;
  if (!facility) throw notDispatchable(supplierFacilityId);
  return facility;
}

/**
 * The latest stored rate from `base` to `target` (SQL expressions) as a lateral row r (rate, at): the
 * query of GET /currency_exchange/latest, so integrators can reproduce the stored rate.
 */
const latestRateSql = (base: Prisma.Sql, target: Prisma.Sql) => Prisma.sql`LATERAL (
  SELECT r.rate, r.at FROM "CurrencyRate" r WHERE r.base = ${base} AND r.target = ${target} ORDER BY r.at DESC LIMIT 1) r`;

/**
 * Cross-currency pricing columns: set when the supplier's currency differs from the location's (rate =
 * latest stored rate from the location's currency to the supplier's, null when none is stored), cleared
 * otherwise — including when no supplier is assigned.
 */
function currencyColumns(
  locationCurrency: string,
  supplierCurrency: string | null,
  rate: { rate: Prisma.Decimal | null; rateAt: Date | null },
) {
  if (supplierCurrency === null || supplierCurrency === locationCurrency) {
    return { currencyId: null, locationCurrencyId: null, currencyExchangeRate: null, currencyExchangeRateAt: null };
  }
  return {
    currencyId: supplierCurrency,
    locationCurrencyId: locationCurrency,
    currencyExchangeRate: rate.rate,
    currencyExchangeRateAt: rate.rateAt,
  };
}

/** currencyColumns for a work order at `locationId` assigned to a supplier paid in `supplierCurrency`. */
export async function currencyData(tx: Tx, locationId: number, supplierCurrency: string | null) {
  const [row] = await tx.$queryRaw<{ currency: string; rate: Prisma.Decimal | null; rateAt: Date | null }[]>`
    SELECT l.currency, r.rate, r.at AS "rateAt"
      FROM "Location" l LEFT JOIN ${latestRateSql(Prisma.sql`l.currency`, Prisma.sql`${supplierCurrency}::text`)} ON true
     WHERE l.id = ${locationId}`;
  if (!row) throw new Error(`currencyData: no location ${locationId}`);
  return currencyColumns(row.currency, supplierCurrency, row);
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

/** What a create reads of its references besides ReferenceFields (each optional: null reads nothing). */
interface FactsAsked {
  buyerFacilityId: number | null;
  supplierFacilityId: number | null;
  /** The supplier's currency when the supplier is not read here (an upsert keeps the stored one). */
  supplierCurrency?: string | null;
  /** E-mails the create names, checked against the work order's tenants (contacts.ts). */
  contacts: NamedEmail[];
}

/** One statement's answer: the company, whether each referenced id is the company's, and what the insert copies. */
interface Facts {
  companyName: string;
  serviceRequestsNeedApproval: boolean;
  buyerFacility: boolean;
  /** The location's name and currency; null when it is not the company's. */
  locationName: string | null;
  locationCurrency: string | null;
  problemType: boolean;
  /** The asset's location; null when no asset was given or it is not the company's. */
  assetLocationId: number | null;
  schedule: boolean;
  supplier: { id: number; currency: string; dispatchable: boolean } | null;
  rate: Prisma.Decimal | null;
  rateAt: Date | null;
  outsideContacts: string[];
}

/**
 * Reads, in one statement (a create is one transaction: every statement holds its connection), what a
 * create checks and copies: the company, each referenced id's ownership, the supplier and the exchange
 * rate between the location's and the supplier's currencies, and the named contacts outside the tenants.
 */
async function readFacts(tx: Tx, companyId: number, f: ReferenceFields, asked: FactsAsked): Promise<Facts> {
  const company = Prisma.sql`${companyId}::int`;
  const related = { buyerCompanyId: companyId, supplierFacilityIds: [asked.supplierFacilityId] };
  const [row] = await tx.$queryRaw<Facts[]>`
    SELECT co.name AS "companyName", co."serviceRequestsNeedApproval",
           EXISTS (SELECT 1 FROM "BuyerFacility" b WHERE b.id = ${asked.buyerFacilityId}::int AND b."buyerCompanyId" = co.id) AS "buyerFacility",
           l.name AS "locationName", l.currency AS "locationCurrency",
           EXISTS (SELECT 1 FROM "ProblemType" p WHERE p.id = ${f.problemTypeId}::int AND p."buyerCompanyId" = co.id) AS "problemType",
           (SELECT a."locationId" FROM "Asset" a WHERE a.id = ${f.assetId}::int AND a."buyerCompanyId" = co.id) AS "assetLocationId",
           EXISTS (SELECT 1 FROM "PlannedMaintenanceSchedule" s
                    WHERE s.id = ${f.plannedMaintenanceScheduleId}::int AND s."buyerCompanyId" = co.id) AS schedule,
           CASE WHEN sf.id IS NOT NULL
                THEN json_build_object('id', sf.id, 'currency', sf.currency, 'dispatchable', ${dispatchableSql(Prisma.sql`sf`, company)})
           END AS supplier,
           r.rate, r.at AS "rateAt",
           ${contactsOutsideSql(asked.contacts, related)} AS "outsideContacts"
      FROM "BuyerCompany" co
      LEFT JOIN "Location" l ON l.id = ${f.locationId}::int AND l."buyerCompanyId" = co.id
      LEFT JOIN "SupplierFacility" sf ON sf.id = ${asked.supplierFacilityId}::int
      LEFT JOIN ${latestRateSql(Prisma.sql`l.currency`, Prisma.sql`coalesce(sf.currency, ${asked.supplierCurrency ?? null}::text)`)} ON true
     WHERE co.id = ${company}`;
  return row;
}

/** The e-mail a new work order names: its creator, checked against its tenants. */
const creator = (createdBy: string): NamedEmail[] => [{ field: "createdBy", email: createdBy }];

/** What a new work order's create reads: its facility, supplier and author besides the references. */
const factsForNew = (input: { buyerFacilityId: number; supplierFacilityId: number | null; createdBy: string }) => ({
  buyerFacilityId: input.buyerFacilityId,
  supplierFacilityId: input.supplierFacilityId,
  contacts: creator(input.createdBy),
});

/** The currency columns of a work order at the facts' location, paid in `supplierCurrency` (null: no supplier). */
const currencyOf = (facts: Facts, supplierCurrency: string | null) =>
  currencyColumns(facts.locationCurrency!, supplierCurrency, facts);

/** The names the workorder.create event carries, from the facts. */
const namesOf = (facts: Facts) => ({ customer: facts.companyName, location: facts.locationName! });

/**
 * Every referenced id must be the company's (one 400 naming each offending field). The main asset must
 * be at the work order's location and the sub-assets below it; the survey task must be a task of the
 * walkthrough's survey. Returns the walkthrough's task list as text ("- title: answer" lines).
 */
async function checkReferences(tx: Tx, companyId: number, f: ReferenceFields, facts: Facts): Promise<string | null> {
  if ((f.walkThroughId === null) !== (f.siteSurveyTaskTitleId === null)) {
    throw badInput("walkThroughId and siteSurveyTaskTitleId must be given together or not at all");
  }
  // Walkthroughs and sub-assets are rare on a create: read only when named.
  const walkthrough =
    f.walkThroughId === null
      ? null
      : await tx.walkthrough.findFirst({
          where: { id: f.walkThroughId, location: { buyerCompanyId: companyId } },
          select: { answers: true, survey: { select: { tasks: { orderBy: { id: "asc" } } } } },
        });
  const problems: string[] = [];
  if (facts.locationName === null) problems.push(`locationId ${f.locationId} is not a location of this company`);
  if (!facts.problemType) problems.push(`problemTypeId ${f.problemTypeId} is not a problem type of this company`);
  if (f.assetId !== null) {
    if (facts.assetLocationId === null) problems.push(`assetId ${f.assetId} is not an asset of this company`);
    else if (facts.assetLocationId !== f.locationId)
      problems.push(`assetId ${f.assetId} is not at location ${f.locationId}`);
  }
  if (f.subAssetIds.length) {
    const below =
      f.assetId !== null && facts.assetLocationId !== null
        ? (await subtreeIds(tx, f.assetId)).filter((id) => id !== f.assetId)
        : [];
    const stray = f.subAssetIds.filter((id) => !below.includes(id));
    if (stray.length)
      problems.push(`subAssetIds ${stray.join(", ")} are not sub-assets of assetId ${f.assetId ?? "(none given)"}`);
  }
  if (f.plannedMaintenanceScheduleId !== null && !facts.schedule) {
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

/**
 * Inserts the work order with its first statusChanges entry, the workorder.create event and the search
 * vector. `names`: the company's and the location's, for the event (the caller has read them).
 */
async function insertWorkOrder(
  tx: Tx,
  data: Omit<Prisma.WorkOrderUncheckedCreateInput, "statusChangedAt">,
  names: { customer: string; location: string },
  actor: WorkOrderActor,
  now: Date,
): Promise<number> {
  const inserted = await tx.workOrder.create({
    data: { ...data, statusChangedAt: now },
    select: { id: true, buyerCompanyId: true, locationId: true, supplierFacilityId: true, status: true },
  });
  // A new work order is visible to no other supplier yet.
  const wo = { ...inserted, buyerCompany: { name: names.customer }, location: { name: names.location }, visibleTo: [] };
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
    const supplierFacilityId = stored ? null : (input.supplierFacilityId ?? null);
    const facts = await readFacts(
      tx,
      companyId,
      fields,
      stored
        ? {
            buyerFacilityId: input.buyerFacilityId,
            supplierFacilityId,
            supplierCurrency: stored.supplierFacility?.currency,
            contacts: [],
          }
        : factsForNew({ ...input, supplierFacilityId, createdBy }),
    );
    if (!facts.buyerFacility)
      throw badInput(`buyerFacilityId ${input.buyerFacilityId} is not a facility of this company`);
    const taskList = await checkReferences(tx, companyId, fields, facts);
    if (stored) {
      const currency = currencyOf(facts, stored.supplierFacility?.currency ?? null);
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
        supplierFacilityId,
        needApproval: input.needApproval,
        status: input.status,
        includeWalkthroughTaskList: input.includeWalkthroughTaskList,
      },
      facts,
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
  facts: Facts,
  taskList: string | null,
  actor: WorkOrderActor,
  now: Date,
): Promise<number> {
  const { needApproval, status, includeWalkthroughTaskList: include, ...fields } = input;
  const includeWalkthroughTaskList = include ?? false;
  if (includeWalkthroughTaskList && taskList === null) throw badInput("includeWalkthroughTaskList needs walkThroughId");
  const supplier = input.supplierFacilityId === null ? null : facts.supplier;
  if (input.supplierFacilityId !== null && !supplier?.dispatchable) throw notDispatchable(input.supplierFacilityId);
  refuseOutsideContacts(creator(input.createdBy), facts.outsideContacts);
  // needApproval overrides the company default; a requested PendingApproval asks for approval too.
  // Any other requested status is only a wish: the facts (approval, supplier) decide.
  const needsApproval = (needApproval ?? facts.serviceRequestsNeedApproval) || status === "PendingApproval";
  return insertWorkOrder(
    tx,
    {
      ...fields,
      ...currencyOf(facts, supplier?.currency ?? null),
      description: includeWalkthroughTaskList ? withTaskList(fields.description, taskList!) : fields.description,
      includeWalkthroughTaskList,
      buyerCompanyId: companyId,
      needsApproval,
      status: initialStatus({ actor: "buyer", needsApproval, hasSupplier: supplier !== null }),
      supplierFacilityId: supplier?.id ?? null,
      assignedAt: supplier ? now : null,
    },
    namesOf(facts),
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
  const facts = await readFacts(tx, companyId, input, factsForNew(input));
  return insertChecked(tx, companyId, input, facts, await checkReferences(tx, companyId, input, facts), actor, now);
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
    // The key's own facility: related to the buyer (the location's condition), so no dispatch check.
    const facts = await readFacts(tx, location.buyerCompanyId, fields, {
      buyerFacilityId: null,
      supplierFacilityId: ctx.viewer.supplierFacilityId!,
      contacts: [],
    });
    await checkReferences(tx, location.buyerCompanyId, fields, facts);
    const supplier = facts.supplier!;
    const id = await insertWorkOrder(
      tx,
      {
        ...fields,
        ...currencyOf(facts, supplier.currency),
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
      namesOf(facts),
      actorOf(ctx.viewer),
      now,
    );
    return tx.workOrder.findUniqueOrThrow({ ...query, where: { id } });
  });
}
