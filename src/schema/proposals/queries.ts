import { readRoutes } from "../core/read-routes.ts";
import { ProposalPage, ProposalRef } from "./types.ts";
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
