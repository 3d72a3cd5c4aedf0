import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires } from "../core/permissions.ts";
import { ProposalDecisionInput, ProposalInput, ProposalRef } from "./types.ts";
import { decideProposal, upsertProposal } from "./rules/proposals.ts";
import { BUYER_DECISIONS, PROPOSAL_STATES } from "./rules/state-machine.ts";

const INTERNAL_TEAMS = { "403": "Internal service team keys may not use proposals" };

builder.mutationField("upsertProposal", (t) =>
  t.prismaField({
    ...restRoute(
      {
        interfaces: ["supplier"],
        method: "POST",
        path: "/quote/proposals",
        type: "Proposal",
        bodyArg: "input",
        errors: INTERNAL_TEAMS,
      },
      requires("billing.write"),
    ),
    description:
      "Creates a proposal (directly pending), or with `id` revises the facility's own pending proposal. Totals are checked exactly (400 naming them).",
    type: ProposalRef,
    args: { input: t.arg({ type: ProposalInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => upsertProposal(ctx, input as never, query),
  }),
);

for (const action of BUYER_DECISIONS) {
  const row = PROPOSAL_STATES.rows.find((r) => r.action === action)!;
  builder.mutationField(`proposal${action[0].toUpperCase()}${action.slice(1)}`, (t) =>
    t.prismaField({
      ...restRoute(
        {
          interfaces: ["buyer"],
          method: "PATCH",
          path: `/quote/proposals/${action}`,
          type: "Proposal",
          bodyArg: "input",
        },
        requires("billing.approve", { noun: "proposal", id: (args) => args.input.id }),
      ),
      description: `${action}: from ${row.from.join(", ")} to ${row.to}${action === "decline" ? " (declineNotes required)" : ""}. Returns the proposal.`,
      type: ProposalRef,
      args: { input: t.arg({ type: ProposalDecisionInput, required: true }) },
      resolve: (query, _root, { input }, ctx) => decideProposal(ctx, action, input, query),
    }),
  );
}
