// Walkthroughs (site surveys): read-only. Who sees which (the company, narrowed by the key contact's
// locations and brands), the heat map ranges resolved at read time, each score's band, and the work
// orders linked to a walkthrough within the caller's work order read scope. docs/walkthroughs.md.
import DataLoader from "dataloader";
import type { Prisma } from "../../db.ts";
import type { Context } from "../core/context.ts";
import { findPage, type ListArgs, type ListSpec } from "../core/list.ts";
import { countBy } from "../core/count-by.ts";
import { findInScope } from "../core/tenancy.ts";
import { splitWindows, windowFilters } from "../core/time-window.ts";
import type { ListQuery } from "../core/interfaces.ts";
import { workOrderScope } from "../work-orders/public.ts";

// ---- role location and brand scoping

/** What the key's contact may see (provisioning's hasAccessToAllLocations, locationIds, brandIds). */
interface LocationAccess {
  allLocations: boolean;
  locationIds: number[];
  brandIds: number[];
}

/** The locations a contact may see: all, or its locationIds; and when it has brandIds, only those brands' locations. */
function locationAccessWhere(access: LocationAccess): Prisma.LocationWhereInput {
  return {
    ...(access.allLocations ? {} : { id: { in: access.locationIds } }),
    ...(access.brandIds.length ? { brandId: { in: access.brandIds } } : {}),
  };
}

const accessByRequest = new WeakMap<object, Promise<LocationAccess>>();

/** The contact's access, read once per request. */
function accessOf(ctx: Context): Promise<LocationAccess> {
  let access = accessByRequest.get(ctx);
  if (!access) {
    access = ctx.db.contact
      .findUniqueOrThrow({
        where: { id: ctx.viewer.contactId },
        select: { hasAccessToAllLocations: true, locationIds: true, brandIds: true },
      })
      .then((c) => ({ allLocations: c.hasAccessToAllLocations, locationIds: c.locationIds, brandIds: c.brandIds }));
    accessByRequest.set(ctx, access);
  }
  return access;
}

/** The one scope of walkthroughs: the company's, at locations the contact may see. */
export async function walkthroughScope(ctx: Context): Promise<Prisma.WalkthroughWhereInput> {
  return { location: { buyerCompanyId: ctx.viewer.buyerCompanyId ?? -1, ...locationAccessWhere(await accessOf(ctx)) } };
}

// ---- list, count_by, one

const WALKTHROUGH_LIST: ListSpec = {
  filters: { id: "int", locationId: "int", surveyId: "int", completedById: "int" },
  sortable: ["id", "completedAt"],
  defaultSort: { field: "completedAt", order: "desc" },
};

/** The list's filters, sorting and grouping, for its route (OpenAPI). */
export const WALKTHROUGH_QUERY: ListQuery = {
  filters: { ...WALKTHROUGH_LIST.filters, ...windowFilters(["completedAt"]) },
  sortable: WALKTHROUGH_LIST.sortable,
  groupable: Object.keys(WALKTHROUGH_LIST.filters),
};

export const WALKTHROUGH_FILTERS = [
  ...Object.keys(WALKTHROUGH_LIST.filters),
  "completedAt",
  "completedAtStart",
  "completedAtEnd",
];

async function scoped(ctx: Context, filter: unknown) {
  const { rest, where } = splitWindows(filter, ["completedAt"]);
  return { scope: { AND: [await walkthroughScope(ctx), ...where] }, rest };
}

export async function walkthroughPage(ctx: Context, args: ListArgs, query: object) {
  const { scope, rest } = await scoped(ctx, args.filter);
  return findPage(ctx.db.walkthrough, scope, { ...args, filter: rest }, WALKTHROUGH_LIST, query);
}

export async function walkthroughCount(ctx: Context, args: { group_by?: string | null; filter?: unknown }) {
  const { scope, rest } = await scoped(ctx, args.filter);
  return countBy(ctx.db.walkthrough, scope, { ...args, filter: rest }, WALKTHROUGH_LIST);
}

/** 404 when it does not exist, 400 when it is outside the key's scope (another company, or a location the contact may not see). */
export const walkthroughById = async (ctx: Context, id: number, query: object) =>
  findInScope(ctx.db.walkthrough, id, await walkthroughScope(ctx), query);

// ---- heat map ranges and score bands

export interface HeatMapBand {
  color: string;
  lowerRange: number;
}

/** Stored ranges as bands sorted by lowerRange; null when there are none (null, empty or no valid entry). */
function bandsOf(stored: unknown): HeatMapBand[] | null {
  if (!Array.isArray(stored)) return null;
  const bands = stored
    .filter(
      (b): b is HeatMapBand =>
        typeof b?.color === "string" && typeof b?.lowerRange === "number" && Number.isFinite(b.lowerRange),
    )
    .map((b) => ({ color: b.color, lowerRange: b.lowerRange }))
    .sort((a, b) => a.lowerRange - b.lowerRange);
  return bands.length ? bands : null;
}

/** The survey's ranges, else its template's, else null (resolved at read time). */
export const resolveRanges = (survey: { heatMapRanges: unknown; template: { heatMapRanges: unknown } | null }) =>
  bandsOf(survey.heatMapRanges) ?? bandsOf(survey.template?.heatMapRanges ?? null);

/** The spec's rule: the band with the highest lowerRange that is less than or equal to the score; null below every band. */
export function bandOf(score: number, bands: HeatMapBand[] | null): HeatMapBand | null {
  let match: HeatMapBand | null = null;
  for (const band of bands ?? [])
    if (band.lowerRange <= score && (!match || band.lowerRange >= match.lowerRange)) match = band;
  return match;
}

// ---- linked work orders

type WorkOrderRow = Prisma.WorkOrderGetPayload<object>;
const linkLoaders = new WeakMap<object, DataLoader<number, WorkOrderRow[]>>();

/**
 * Work orders created from a walkthrough that the caller may read: the work order scope (work-orders'
 * own), at locations the contact may see. One statement per page of walkthroughs.
 */
export function linkedWorkOrders(ctx: Context, walkthroughId: number): Promise<WorkOrderRow[]> {
  let loader = linkLoaders.get(ctx);
  if (!loader) {
    loader = new DataLoader(async (ids) => {
      const rows = await ctx.db.workOrder.findMany({
        where: {
          AND: [
            { walkThroughId: { in: [...ids] } },
            workOrderScope(ctx.viewer),
            { location: locationAccessWhere(await accessOf(ctx)) },
          ],
        },
        orderBy: { id: "asc" },
      });
      return ids.map((id) => rows.filter((w) => w.walkThroughId === id));
    });
    linkLoaders.set(ctx, loader);
  }
  return loader.load(walkthroughId);
}
