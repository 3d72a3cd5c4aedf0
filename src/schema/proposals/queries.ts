import { readRoutes } from "../core/read-routes.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
import { ProposalPage, ProposalRef, ProposalStatusEnum } from "./types.ts";
import { checkProposalFilter, PROPOSAL_LIST, proposalScope } from "./rules/proposals.ts";

// Buyer: the proposals for the company's work orders; supplier: the facility's own. Internal teams: 403.
readRoutes({
  interfaces: ["buyer", "supplier"],
  errors: { "403": "Internal service team keys may not use proposals" },
  path: "/quote/proposals",
  type: "Proposal",
  fields: { list: "proposals", countBy: "proposalsCountBy", one: "proposal" },
  page: ProposalPage,
  item: ProposalRef,
  table: (ctx) => ctx.db.proposal,
  scope: proposalScope,
  spec: PROPOSAL_LIST,
  checkFilter: checkProposalFilter,
  description:
    "Proposals: a supplier key's own, a buyer key's for its work orders. Filters: id, workOrderId, status, supplierFacilityId, locationId, requestForProposalId.",
});

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
listConnection("proposalsConnection", {
  type: ProposalRef,
  typeName: "Proposal",
  description: "Proposals: a supplier key's own, a buyer key's for its work orders.",
  interfaces: ["buyer", "supplier"],
  table: (ctx) => ctx.db.proposal,
  scope: (ctx) => proposalScope(ctx.viewer),
  filter: defineFilter("ProposalFilter", "Proposal", "Proposals", {
    ids: match.ids("id", "Proposal ids"),
    status: match.oneOf("status", ProposalStatusEnum, "Statuses"),
    workOrderIds: match.ids("workOrderId", "Work order ids"),
    locationIds: match.ids("locationId", "Location ids"),
    supplierFacilityIds: match.ids("supplierFacilityId", "Supplier facility ids"),
    requestForProposalIds: match.ids("requestForProposalId", "Request for proposal ids"),
    createdAt: match.range("createdAt", "Created in this range"),
  }),
  order: defineOrder(
    "Proposal",
    "Proposal",
    { id: "Proposal id", createdAt: "Creation time", updatedAt: "Last change", totalAfterTax: "Total after tax" },
    [{ field: "id", direction: "desc" }],
  ),
});
