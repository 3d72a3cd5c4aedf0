import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires } from "../core/permissions.ts";
import { ProposalDecisionInput, ProposalInput, ProposalRef } from "./types.ts";
import { decideProposal, upsertProposal } from "./rules/proposals.ts";
import { PROPOSAL_STATES } from "./rules/state-machine.ts";

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
    args: {
      input: t.arg({
        type: ProposalInput,
        required: true,
        description: "The proposal to create, or to revise when it carries an id",
      }),
    },
    resolve: (query, _root, { input }, ctx) => upsertProposal(ctx, input as never, query),
  }),
);

/** The buyer's decision on a pending proposal (PATCH /quote/proposals/<action>); `note` ends the description. */
function proposalDecisionField(field: string, action: "award" | "decline", note = "") {
  const row = PROPOSAL_STATES.rows.find((r) => r.action === action)!;
  builder.mutationField(field, (t) =>
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
      description: `${action}: from ${row.from.join(", ")} to ${row.to.join(", ")}${note}. Returns the proposal.`,
      type: ProposalRef,
      args: {
        input: t.arg({
          type: ProposalDecisionInput,
          required: true,
          description: "The proposal and, for a decline, the reasons",
        }),
      },
      resolve: (query, _root, { input }, ctx) => decideProposal(ctx, action, input, query),
    }),
  );
}

proposalDecisionField("proposalAward", "award");
proposalDecisionField("proposalDecline", "decline", " (declineNotes required)");
