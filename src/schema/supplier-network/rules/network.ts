// The buyer's supplier network (GET /v1/buyer/supplier_facilities): one item per live relationship of
// the key's company, identified by the supplier facility id (the id work orders are dispatched with).
import type { Prisma } from "../../../db.ts";
import type { Context } from "../../core/context.ts";
import type { Viewer } from "../../core/viewer.ts";
import { notFound, outOfScope } from "../../core/errors.ts";
import { filterWhere, pageOf, type ListArgs, type ListSpec } from "../../core/list.ts";

/** The one scope of the buyer side: the company's relationships that are not deleted. */
export const networkScope = (viewer: Viewer): Prisma.BuyerSupplierRelationshipWhereInput => ({
  buyerCompanyId: viewer.buyerCompanyId ?? -1,
  deletedAt: null,
});

export const NETWORK_LIST: ListSpec = {
  filters: {
    id: "int",
    supplierFacilityId: "int",
    supplierCompanyId: "int",
    name: "string",
    isPreferred: "boolean",
    trade: "string",
    problemTypeId: "int",
    locationId: "int",
  },
  sortable: ["id", "name", "isPreferred", "createdAt"],
  defaultSort: { field: "id", order: "asc" },
};

const valuesOf = <T>(parsed: unknown): T[] =>
  parsed !== null && typeof parsed === "object" && "in" in parsed ? (parsed as { in: T[] }).in : [parsed as T];

/**
 * The filters as a `where` on the relationship (each a comma list meaning "any of"): `id` and
 * `supplierFacilityId` the facility; `name` part of the facility name, ignoring case; `trade` one of the
 * relationship's trades (exact); `problemTypeId` / `locationId` ranked for that problem type / location
 * (both given: one ranking row with both).
 */
function networkFilter(filter: unknown): Prisma.BuyerSupplierRelationshipWhereInput {
  const f = filterWhere(filter, NETWORK_LIST);
  const and: Prisma.BuyerSupplierRelationshipWhereInput[] = [];
  const ints = (key: string) => f[key] as number | Prisma.IntFilter;
  for (const key of ["id", "supplierFacilityId"]) if (key in f) and.push({ supplierFacilityId: ints(key) });
  if ("supplierCompanyId" in f) and.push({ supplierFacility: { supplierCompanyId: ints("supplierCompanyId") } });
  if ("name" in f) {
    and.push({
      OR: valuesOf<string>(f.name).map((name) => ({
        supplierFacility: { name: { contains: name, mode: "insensitive" as const } },
      })),
    });
  }
  if ("isPreferred" in f) and.push({ OR: valuesOf<boolean>(f.isPreferred).map((isPreferred) => ({ isPreferred })) });
  if ("trade" in f) and.push({ trades: { hasSome: valuesOf<string>(f.trade) } });
  if ("problemTypeId" in f || "locationId" in f) {
    and.push({ rankings: { some: { problemTypeId: ints("problemTypeId"), locationId: ints("locationId") } } });
  }
  return { AND: and };
}

/** The list's sort fields on the relationship table: `id` is the facility id, `name` the facility's. */
function networkOrder(
  orderBy: Record<string, "asc" | "desc">[],
): Prisma.BuyerSupplierRelationshipOrderByWithRelationInput[] {
  return orderBy.map((entry) => {
    const [[field, order]] = Object.entries(entry);
    if (field === "id") return { supplierFacilityId: order };
    if (field === "name") return { supplierFacility: { name: order } };
    return { [field]: order };
  });
}

export async function networkPage(ctx: Context, args: ListArgs, query: object) {
  const page = pageOf({ ...args, filter: undefined }, NETWORK_LIST);
  const where = { AND: [networkScope(ctx.viewer), networkFilter(args.filter)] };
  const [data, count] = await Promise.all([
    ctx.db.buyerSupplierRelationship.findMany({
      ...query,
      where,
      orderBy: networkOrder(page.orderBy),
      skip: page.skip,
      take: page.take,
    }),
    ctx.db.buyerSupplierRelationship.count({ where }),
  ]);
  return { data, count };
}

/** One supplier facility of the network: 404 when no such facility exists, 400 when it is not in the network. */
export async function networkFacility(ctx: Context, supplierFacilityId: number, query: object) {
  const row = await ctx.db.buyerSupplierRelationship.findFirst({
    ...query,
    where: { AND: [networkScope(ctx.viewer), { supplierFacilityId }] },
  });
  if (row) return row;
  const exists = await ctx.db.supplierFacility.count({ where: { id: supplierFacilityId } });
  throw exists
    ? outOfScope(`supplier facility ${supplierFacilityId} is not in this company's supplier network`)
    : notFound(`no supplier facility ${supplierFacilityId}`);
}
