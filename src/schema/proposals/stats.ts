// proposalStats (graphql only; docs/dashboards.md, "Charts"): proposal counts and exact sums by status
// and/or creation month, per currency, in the proposal list's scope (rules/proposals.ts). A proposal's
// amounts are in its work order's pricing currency: currencyId when cross-currency, else the location's
// (as an invoice's currency is derived).
import { Prisma } from "../../db.ts";
import { builder } from "../core/builder.ts";
import { type TotalsSource, totalsArgs, totalsRowType, totalsRows } from "../core/totals.ts";
import { proposalScopeSql } from "./rules/proposals.ts";
import { ProposalStatusEnum } from "./types.ts";

const sql = Prisma.sql;

const PROPOSALS: TotalsSource = {
  field: "proposalStats",
  from: sql`"Proposal" p`,
  scope: proposalScopeSql,
  status: sql`p.status`,
  dated: sql`p."createdAt"`,
  currency: {
    key: sql`coalesce(pw."currencyId", pl.currency)`,
    join: sql`JOIN "WorkOrder" pw ON pw.id = p."workOrderId" JOIN "Location" pl ON pl.id = p."locationId"`,
  },
  locationId: sql`p."locationId"`,
  supplierFacilityId: sql`p."supplierFacilityId"`,
  beforeTax: sql`p."totalBeforeTax"`,
  tax: sql`p.tax`,
  afterTax: sql`p."totalAfterTax"`,
};

const ProposalStatsRowRef = totalsRowType("ProposalStatsRow", "proposal", ProposalStatusEnum);

builder.queryField("proposalStats", (t) =>
  t.field({
    subGraphs: ["graphql"],
    nullable: true,
    description:
      "Proposals in the key's scope (buyer: its company's; supplier: its facility's own) counted and summed by status and/or creation month, per currency. See docs/dashboards.md.",
    type: [ProposalStatsRowRef],
    args: totalsArgs(t, ProposalStatusEnum, "Only proposals created in this range (from inclusive, to exclusive)"),
    resolve: (_root, args, ctx) => totalsRows(ctx, PROPOSALS, args),
  }),
);
