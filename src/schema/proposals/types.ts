// Proposal types, and the cost sections' GraphQL shape that invoices share (their sections are "as in
// proposal"): line items, a tax rate and a before-tax total per section, four document totals.
import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { connectionLimits, connectionTypes } from "../core/connection.ts";
import { relationQuery, rowsInScope } from "../core/relations.ts";
import type { WorkOrder } from "../../generated/prisma/client.ts";
import { workOrderScope } from "../work-orders/public.ts";
import { pageType } from "../core/list.ts";
import { FileRef } from "../files/public.ts";
import { moneyText } from "../core/values.ts";
import { Prisma } from "../../db.ts";
import { answeredColumn, answeredDecimalText, answeredRelation, answeredValue } from "../core/statement-answers.ts";
import { COST_SECTIONS, rateText, type LineItem, type TotalNames } from "./rules/costs.ts";
import { PROPOSAL_STATUSES } from "./rules/state-machine.ts";
import { PROPOSAL_TOTALS, proposalScope } from "./rules/proposals.ts";
import { describedValues } from "../core/enums.ts";

const LineItemRef = builder.objectRef<LineItem>("LineItem").implement({
  description: "A cost line: what and how much (a decimal string with two decimals)",
  fields: (t) => ({
    description: t.exposeString("description", { description: "What the line is for (free text)" }),
    amount: t.exposeString("amount", { description: "Amount of the line, a decimal string with two decimals" }),
  }),
});

const label = (section: string) => section.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);

// A rate for a statement that answers the row (core/statement-answers.ts): trim_scale drops its trailing
// zeros, as rateText does. Money columns have two decimals, as moneyText writes them.
const rateColumn = (name: string) => answeredValue((row) => Prisma.raw(`trim_scale(${row}."${name}")::text`));

/** The section and total fields of a proposal or invoice (t: the object's field builder). */
export function costFields(t: any, names: TotalNames) {
  const fields: Record<string, unknown> = {};
  for (const section of COST_SECTIONS) {
    fields[`${section}LineItems`] = t.field({
      type: [LineItemRef],
      description: `Line items of the ${label(section)} section`,
      extensions: answeredColumn(`${section}LineItems`),
      resolve: (r: any) => r[`${section}LineItems`],
    });
    fields[`${section}TaxRate`] = t.string({
      description: `Tax rate of the ${label(section)} section, percent`,
      extensions: rateColumn(`${section}TaxRate`),
      resolve: (r: any) => rateText(r[`${section}TaxRate`]),
    });
    fields[`${section}TotalBeforeTax`] = t.string({
      description: `Before-tax total of the ${label(section)} section (the sum of its line items when it has any), two decimals`,
      extensions: answeredDecimalText(`${section}TotalBeforeTax`),
      resolve: (r: any) => moneyText(r[`${section}TotalBeforeTax`]),
    });
  }
  fields[names.beforeTax] = t.string({
    description: "Sum of the section totals",
    extensions: answeredDecimalText(names.beforeTax),
    resolve: (r: any) => moneyText(r[names.beforeTax]),
  });
  fields[names.taxRate] = t.string({
    description: `Tax rate on the whole ${names.beforeTax}, percent`,
    extensions: rateColumn(names.taxRate),
    resolve: (r: any) => rateText(r[names.taxRate]),
  });
  fields[names.tax] = t.string({
    description: "Tax from the section rates and the document rate, rounded half up to cents (docs/commerce.md)",
    extensions: answeredDecimalText(names.tax),
    resolve: (r: any) => moneyText(r[names.tax]),
  });
  fields[names.afterTax] = t.string({
    description: `${names.beforeTax} plus ${names.tax}, two decimals`,
    extensions: answeredDecimalText(names.afterTax),
    resolve: (r: any) => moneyText(r[names.afterTax]),
  });
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

export const ProposalStatusEnum = builder.enumType("ProposalStatus", {
  description: "Where a proposal is in its lifecycle",
  values: describedValues(PROPOSAL_STATUSES, {
    pending: "Submitted by the supplier and waiting for the buyer's decision (proposals are created pending)",
    awarded: "Accepted by the buyer",
    declined: "Refused by the buyer (reasons in declineNotes)",
  }),
});

export const ProposalRef = builder.prismaNode("Proposal", {
  ...scopedNode(proposalScope),
  description: "A supplier's quote for a work order",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The proposal's id" }),
    workOrderId: t.exposeInt("workOrderId", { description: "Id of the work order quoted for" }),
    supplierFacilityId: t.exposeInt("supplierFacilityId", {
      description: "Id of the supplier facility that made the proposal",
    }),
    status: t.expose("status", {
      type: ProposalStatusEnum,
      description: "Where the proposal is: pending, awarded or declined",
    }),
    scope: t.exposeString("scope", {
      nullable: true,
      description: "The work the proposal covers (free text); null when none",
    }),
    ...(costFields(t, PROPOSAL_TOTALS) as {}),
    requestForProposalId: t.exposeInt("requestForProposalId", {
      nullable: true,
      description: "Id of the work order's request for proposal; null when it has none",
    }),
    proposalPdfLink: t.exposeString("proposalPdfLink", {
      nullable: true,
      description: "URL of the proposal as a PDF document; null when none",
    }),
    attachments: t.field({
      description: "Files attached to the proposal, in the order given",
      type: [FileRef],
      select: { attachments: { orderBy: { position: "asc" }, include: { file: true } } },
      extensions: answeredRelation({ relation: "attachments", through: "file", orderBy: [{ position: "asc" }] }),
      resolve: (p) => p.attachments.map((a) => a.file),
    }),
    declineNotes: t.exposeString("declineNotes", {
      nullable: true,
      description: "Why the buyer declined the proposal; null unless declined",
    }),
    decidedAt: t.expose("decidedAt", {
      type: "DateTime",
      nullable: true,
      description: "When the buyer awarded or declined the proposal; null while pending",
    }),
    decidedBy: t.exposeString("decidedBy", {
      nullable: true,
      description: "Email of the buyer contact who awarded or declined it",
    }),
    locationId: t.exposeInt("locationId", { description: "Id of the work order's location (derived)" }),
    buyerFacilityId: t.exposeInt("buyerFacilityId", { description: "Id of the work order's buyer facility (derived)" }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", { description: "Id of the work order's buyer company (derived)" }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the proposal was created" }),
    updatedAt: t.expose("updatedAt", {
      type: "DateTime",
      description: "When the proposal was last revised or decided",
    }),
    workOrder: t.prismaField({
      type: "WorkOrder",
      nullable: true,
      subGraphs: ["graphql"],
      description: "The work order; null when the key may not read it (any more)",
      resolve: (query, row, _args, ctx) =>
        rowsInScope<WorkOrder>(ctx, "WorkOrder", workOrderScope, query).load(row.workOrderId),
    }),
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
    scope: t.string({ description: "The work the proposal covers (free text)" }),
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
  description: "Body of a buyer's decision on a pending proposal (award or decline)",
  fields: (t) => ({
    id: t.int({ required: true, description: "The proposal" }),
    declineNotes: t.string({ description: "decline: the reasons (required)" }),
  }),
});

// The dashboard graph (GraphQL only): a work order's proposals, within the key's proposal scope.
builder.prismaObjectField("WorkOrder", "proposals", (t) =>
  t.relatedConnection(
    "proposals",
    {
      ...connectionLimits,
      cursor: "id",
      subGraphs: ["graphql"],
      description: "The work order's proposals that the key may read, by id",
      totalCount: true,
      query: relationQuery(proposalScope, { id: "asc" as const }),
    },
    ...connectionTypes("A page of a work order's proposals", "A proposal and its cursor"),
  ),
);
