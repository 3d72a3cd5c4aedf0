// Proposals: one scope, the supplier's upsert (derived fields from the work order, costs rolled up
// exactly, attachments the facility uploaded) and the buyer's decision. See docs/commerce.md.
import { Prisma, type Tx } from "../../../db.ts";
import type { Context } from "../../core/context.ts";
import type { Viewer } from "../../core/viewer.ts";
import { enumFilter, type ListSpec } from "../../core/list.ts";
import { badInput } from "../../core/errors.ts";
import { refuseInternalTeams } from "../../core/permissions.ts";
import { lockWritable } from "../../core/tenancy.ts";
import { inTransaction } from "../../core/transaction.ts";
import { isHttpUrl } from "../../core/url.ts";
import { writableScope } from "../../work-orders/public.ts";
import { attachableFiles } from "../../files/public.ts";
import { mismatchMessage, rollUpCosts } from "./costs.ts";
import { PROPOSAL_STATES, PROPOSAL_STATUSES } from "./state-machine.ts";

type Proposal = Prisma.ProposalGetPayload<object>;

export const PROPOSAL_TOTALS = {
  beforeTax: "totalBeforeTax",
  taxRate: "taxRate",
  tax: "tax",
  afterTax: "totalAfterTax",
};

/** Buyer keys see the proposals for their company's work orders, supplier keys their facility's own. Internal teams: 403. */
export function proposalScope(viewer: Viewer): Prisma.ProposalWhereInput {
  refuseInternalTeams(viewer, "proposals");
  if (viewer.kind === "buyer") return { buyerCompanyId: viewer.buyerCompanyId ?? -1 };
  return { supplierFacilityId: viewer.supplierFacilityId ?? -1 };
}

/** The same scope as SQL over `"Proposal" p` (proposalStats). */
export function proposalScopeSql(viewer: Viewer): Prisma.Sql {
  refuseInternalTeams(viewer, "proposals");
  if (viewer.kind === "buyer") return Prisma.sql`p."buyerCompanyId" = ${viewer.buyerCompanyId ?? -1}`;
  return Prisma.sql`p."supplierFacilityId" = ${viewer.supplierFacilityId ?? -1}`;
}

export const PROPOSAL_LIST: ListSpec = {
  filters: {
    id: "int",
    workOrderId: "int",
    status: "string",
    supplierFacilityId: "int",
    locationId: "int",
    requestForProposalId: "int",
  },
  sortable: ["id", "createdAt", "updatedAt", "totalAfterTax"],
  defaultSort: { field: "id", order: "desc" },
};

export const checkProposalFilter = enumFilter("status", PROPOSAL_STATUSES);

export interface ProposalInput extends Record<string, unknown> {
  id?: number | null;
  workOrderId: number;
  totalAfterTax: string;
  scope?: string | null;
  requestForProposalId?: number | null;
  proposalPdfLink?: string | null;
  attachments?: unknown;
}

/** The ids in `attachments`: file details as the upload returned them ({id, …}) or bare ids. */
function attachmentIds(value: unknown): number[] {
  if (!Array.isArray(value))
    throw badInput("attachments must be an array of file details (as POST /file/upload returns them) or file ids");
  return value.map((item, i) => {
    const id = typeof item === "object" && item !== null ? (item as { id?: unknown }).id : item;
    if (!Number.isSafeInteger(id) || (id as number) < 1)
      throw badInput(`attachments[${i}] must carry the id of an uploaded file`);
    return id as number;
  });
}

/** The work order the key's facility may write a proposal or invoice for; else a 400 naming it. */
export async function assignedWorkOrder(tx: Tx, viewer: Viewer, workOrderId: number) {
  const wo = await tx.workOrder.findFirst({
    where: { AND: [{ id: workOrderId }, writableScope(viewer)] },
    include: { location: { select: { currency: true } } },
  });
  if (!wo) throw badInput(`workOrderId ${workOrderId} is not a work order assigned to this key's facility`);
  return wo;
}

/** POST /quote/proposals: create (pending) or, with `id`, revise the facility's own pending proposal. */
export async function upsertProposal(ctx: Context, input: ProposalInput, query: object) {
  const viewer = ctx.viewer;
  const scope = proposalScope(viewer);
  if (input.proposalPdfLink != null && !isHttpUrl(input.proposalPdfLink))
    throw badInput("proposalPdfLink must be a valid http(s) URL");
  const attachments =
    input.attachments == null ? (input.attachments === null ? [] : undefined) : attachmentIds(input.attachments);
  return inTransaction(ctx.db, async (tx) => {
    let stored: Proposal | null = null;
    if (input.id != null) {
      stored = await lockWritable<Proposal>(tx, "Proposal", "proposal", input.id, scope);
      PROPOSAL_STATES.allowed("revise", "supplier", stored.status, { id: stored.id });
      if (stored.workOrderId !== input.workOrderId)
        throw badInput(`workOrderId cannot change: proposal ${stored.id} is for work order ${stored.workOrderId}`);
    }
    const wo = await assignedWorkOrder(tx, viewer, input.workOrderId);
    if (input.requestForProposalId != null && input.requestForProposalId !== wo.requestForProposalId) {
      throw badInput(
        `requestForProposalId ${input.requestForProposalId} is not the request for proposal of work order ${wo.id}`,
      );
    }
    const costs = rollUpCosts(input, stored, PROPOSAL_TOTALS);
    if (costs.mismatches.length) throw badInput(mismatchMessage(costs.mismatches));
    const data = {
      ...costs.data,
      scope: input.scope === undefined ? (stored?.scope ?? null) : input.scope,
      proposalPdfLink: input.proposalPdfLink === undefined ? (stored?.proposalPdfLink ?? null) : input.proposalPdfLink,
      requestForProposalId: wo.requestForProposalId,
      workOrderId: wo.id,
      buyerCompanyId: wo.buyerCompanyId,
      buyerFacilityId: wo.buyerFacilityId,
      locationId: wo.locationId,
    } as Prisma.ProposalUncheckedCreateInput;
    const id = stored
      ? (await tx.proposal.update({ where: { id: stored.id }, data, select: { id: true } })).id
      : (
          await tx.proposal.create({
            data: { ...data, supplierFacilityId: viewer.supplierFacilityId!, createdById: viewer.contactId },
            select: { id: true },
          })
        ).id;
    if (attachments !== undefined) {
      const fileIds = await attachableFiles(tx, viewer, attachments);
      await tx.proposalAttachment.deleteMany({ where: { proposalId: id } });
      await tx.proposalAttachment.createMany({
        data: fileIds.map((fileId, position) => ({ proposalId: id, fileId, position })),
      });
    }
    return tx.proposal.findUniqueOrThrow({ ...query, where: { id } });
  });
}

export interface DecisionInput {
  id: number;
  declineNotes?: string | null;
}

/** PATCH /quote/proposals/{award|decline}: the buyer's decision on a pending proposal. */
export function decideProposal(ctx: Context, action: "award" | "decline", input: DecisionInput, query: object) {
  const scope = proposalScope(ctx.viewer);
  const notes = input.declineNotes?.trim() || null;
  if (action === "decline" && !notes) throw badInput("declineNotes is required to decline a proposal");
  return inTransaction(ctx.db, async (tx) => {
    const proposal = await lockWritable<Proposal>(tx, "Proposal", "proposal", input.id, scope);
    const status = PROPOSAL_STATES.next(action, "buyer", proposal.status, { id: proposal.id });
    return tx.proposal.update({
      ...query,
      where: { id: proposal.id },
      data: {
        status,
        declineNotes: action === "decline" ? notes : null,
        decidedAt: ctx.now(),
        decidedBy: ctx.viewer.email,
      },
    });
  });
}
