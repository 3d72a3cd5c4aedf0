// Proposal types, and the cost sections' GraphQL shape that invoices share (their sections are "as in
// proposal"): line items, a tax rate and a before-tax total per section, four document totals.
import { builder } from "../core/builder.ts";
import { pageType } from "../core/list.ts";
import { FileRef } from "../files/public.ts";
import { moneyText } from "../core/values.ts";
import { COST_SECTIONS, rateText, type LineItem, type TotalNames } from "./rules/costs.ts";
import { PROPOSAL_STATUSES } from "./rules/state-machine.ts";
import { PROPOSAL_TOTALS } from "./rules/proposals.ts";

const LineItemRef = builder.objectRef<LineItem>("LineItem").implement({
  description: "A cost line: what and how much (a decimal string with two decimals)",
  fields: (t) => ({
    description: t.exposeString("description"),
    amount: t.exposeString("amount"),
  }),
});

const label = (section: string) => section.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);

/** The section and total fields of a proposal or invoice (t: the object's field builder). */
export function costFields(t: any, names: TotalNames) {
  const fields: Record<string, unknown> = {};
  for (const section of COST_SECTIONS) {
    fields[`${section}LineItems`] = t.field({ type: [LineItemRef], resolve: (r: any) => r[`${section}LineItems`] });
    fields[`${section}TaxRate`] = t.string({
      description: `Tax rate of the ${label(section)} section, percent`,
      resolve: (r: any) => rateText(r[`${section}TaxRate`]),
    });
    fields[`${section}TotalBeforeTax`] = t.string({ resolve: (r: any) => moneyText(r[`${section}TotalBeforeTax`]) });
  }
  fields[names.beforeTax] = t.string({
    description: "Sum of the section totals",
    resolve: (r: any) => moneyText(r[names.beforeTax]),
  });
  fields[names.taxRate] = t.string({
    description: `Tax rate on the whole ${names.beforeTax}, percent`,
    resolve: (r: any) => rateText(r[names.taxRate]),
  });
  fields[names.tax] = t.string({ resolve: (r: any) => moneyText(r[names.tax]) });
  fields[names.afterTax] = t.string({ resolve: (r: any) => moneyText(r[names.afterTax]) });
  return fields;
}

/** The cost fields of a write body; `afterTax` is left to the caller (required on proposals). */
export function costInputFields(t: any, names: TotalNames) {
  const fields: Record<string, unknown> = {};
  for (const section of COST_SECTIONS) {
    fields[`${section}LineItems`] = t.field({
      type: "JSON",
      description: "[{description, amount}]; amounts are decimal strings",
    });
    fields[`${section}TaxRate`] = t.string({ description: "Percent, 0 to 100; default 0" });
    fields[`${section}TotalBeforeTax`] = t.string({
      description: "Must equal the sum of the section's line items when it has any; computed when omitted",
    });
  }
  fields[names.beforeTax] = t.string({
    description: "Must equal the sum of the section totals; computed when omitted",
  });
  fields[names.taxRate] = t.string({ description: `Percent applied to the whole ${names.beforeTax}; default 0` });
  fields[names.tax] = t.string({
    description: "Must equal the tax the rates give (see docs/commerce.md); computed when omitted",
  });
  return fields;
}

export const ProposalStatusEnum = builder.enumType("ProposalStatus", { values: PROPOSAL_STATUSES });

export const ProposalRef = builder.prismaObject("Proposal", {
  description: "A supplier's quote for a work order",
  fields: (t) => ({
    id: t.exposeInt("id"),
    workOrderId: t.exposeInt("workOrderId"),
    supplierFacilityId: t.exposeInt("supplierFacilityId"),
    status: t.field({ type: ProposalStatusEnum, resolve: (p) => p.status }),
    scope: t.exposeString("scope", { nullable: true }),
    ...(costFields(t, PROPOSAL_TOTALS) as {}),
    requestForProposalId: t.exposeInt("requestForProposalId", { nullable: true }),
    proposalPdfLink: t.exposeString("proposalPdfLink", { nullable: true }),
    attachments: t.field({
      type: [FileRef],
      select: { attachments: { orderBy: { position: "asc" }, include: { file: true } } },
      resolve: (p) => p.attachments.map((a) => a.file),
    }),
    declineNotes: t.exposeString("declineNotes", { nullable: true }),
    decidedAt: t.expose("decidedAt", { type: "DateTime", nullable: true }),
    decidedBy: t.exposeString("decidedBy", {
      nullable: true,
      description: "Email of the buyer contact who awarded or declined it",
    }),
    locationId: t.exposeInt("locationId"),
    buyerFacilityId: t.exposeInt("buyerFacilityId"),
    buyerCompanyId: t.exposeInt("buyerCompanyId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    workOrder: t.relation("workOrder", { subGraphs: ["graphql"] }),
  }),
});

export const ProposalPage = pageType("Proposal", ProposalRef);

export const ProposalInput = builder.inputType("ProposalInput", {
  description: "locationId, buyerFacilityId and buyerCompanyId come from the work order; sending them has no effect.",
  fields: (t) => ({
    id: t.int({ description: "Revises this pending proposal of the key's facility (upsert)" }),
    workOrderId: t.int({ required: true, description: "A work order assigned to the key's facility" }),
    totalAfterTax: t.string({
      required: true,
      description: "Decimal string; must equal the before-tax total plus tax",
    }),
    scope: t.string(),
    ...(costInputFields(t, PROPOSAL_TOTALS) as {}),
    requestForProposalId: t.int({ description: "Defaults to the work order's; another value is refused" }),
    proposalPdfLink: t.string({ description: "A valid http(s) URL" }),
    attachments: t.field({
      type: "JSON",
      description: "File details from POST /v1/supplier/file/upload (or their ids); files of the key's facility",
    }),
  }),
});

export const ProposalDecisionInput = builder.inputType("ProposalDecisionInput", {
  fields: (t) => ({
    id: t.int({ required: true, description: "The proposal" }),
    declineNotes: t.string({ description: "decline: the reasons (required)" }),
  }),
});
