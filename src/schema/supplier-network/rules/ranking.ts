// The ranking of a buyer's supplier network for one location and problem type: the ONE query behind
// the ranking endpoint and the decline auto-pick (work-orders uses it through public.ts), so what a
// dispatcher reads is what auto-pick picks from.
//
// Candidates are the company's live (not deleted) relationships that have a ranking row for the pair;
// unranked suppliers are not candidates. Order: the stored rank ascending, ties by relationship id, so
// the order is total and pages never overlap. The published rank is the position in that order.
import type { Prisma, Tx } from "../../../db.ts";
import type { Context } from "../../core/context.ts";
import { findInScope } from "../../core/tenancy.ts";
import { pageOf, type ListArgs, type ListSpec } from "../../core/list.ts";

export interface RankingKey {
  buyerCompanyId: number;
  locationId: number;
  problemTypeId: number;
  /** Supplier facilities that are not candidates (auto-pick: the decliners of the work order). */
  excludeSupplierFacilityIds?: readonly number[];
}

function rankedWhere(key: RankingKey): Prisma.SupplierRankingWhereInput {
  const exclude = key.excludeSupplierFacilityIds ?? [];
  return {
    locationId: key.locationId,
    problemTypeId: key.problemTypeId,
    relationship: {
      buyerCompanyId: key.buyerCompanyId,
      deletedAt: null,
      ...(exclude.length ? { supplierFacilityId: { notIn: [...exclude] } } : {}),
    },
  };
}

const RANK_ORDER = [
  { rank: "asc" },
  { relationshipId: "asc" },
] satisfies Prisma.SupplierRankingOrderByWithRelationInput[];

/** The next candidate (auto-pick): the first supplier of the ranking, or null when none is left. */
export async function nextRankedSupplier(tx: Tx, key: RankingKey): Promise<{ id: number; currency: string } | null> {
  const first = await tx.supplierRanking.findFirst({
    where: rankedWhere(key),
    orderBy: RANK_ORDER,
    select: { relationship: { select: { supplierFacility: { select: { id: true, currency: true } } } } },
  });
  return first?.relationship.supplierFacility ?? null;
}

/** The ranking endpoint takes no filters, and its order is the ranking: sort_by and order are dropped. */
const RANKING_LIST: ListSpec = { filters: {}, sortable: ["rank"], defaultSort: { field: "rank", order: "asc" } };

/**
 * GET …/buyer_supplier_relationships/ranked/{locationId}/{problemTypeId}: one page of the ranking, each
 * relationship with `rank` = offset + position (rank continues across pages). The location and the
 * problem type must be the company's: 404 when absent, 400 when another company's.
 */
export async function rankedPage(
  ctx: Context,
  locationId: number,
  problemTypeId: number,
  args: ListArgs,
  relationshipQuery: object,
) {
  const buyerCompanyId = ctx.viewer.buyerCompanyId!;
  await findInScope(ctx.db.location, locationId, { buyerCompanyId }, { select: { id: true } });
  await findInScope(ctx.db.problemType, problemTypeId, { buyerCompanyId }, { select: { id: true } });
  const page = pageOf({ offset: args.offset, limit: args.limit, filter: args.filter }, RANKING_LIST);
  const where = rankedWhere({ buyerCompanyId, locationId, problemTypeId });
  const [rows, count] = await Promise.all([
    ctx.db.supplierRanking.findMany({
      where,
      orderBy: RANK_ORDER,
      skip: page.skip,
      take: page.take,
      select: {
        relationship: (Object.keys(relationshipQuery).length
          ? relationshipQuery
          : true) as Prisma.BuyerSupplierRelationshipDefaultArgs,
      },
    }),
    ctx.db.supplierRanking.count({ where }),
  ]);
  // The row itself gets the rank (not a copy): the GraphQL layer knows it by identity as a loaded row.
  return { data: rows.map((row, i) => Object.assign(row.relationship, { rank: page.skip + i + 1 })), count };
}
