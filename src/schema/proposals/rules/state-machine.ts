// The proposal lifecycle (the contract's Proposal status table): created `pending` (no separate submit);
// the supplier may revise it while pending; the buyer awards or declines it. Every status change goes
// through this table (core/state-table.ts).
import type { ProposalStatus } from "../../../generated/prisma/client.ts";
import { stateTable } from "../../core/state-table.ts";

export const PROPOSAL_STATUSES: readonly ProposalStatus[] = ["pending", "awarded", "declined"];

export const PROPOSAL_STATES = stateTable<ProposalStatus, "supplier" | "buyer">("proposal", [
  { action: "revise", actor: "supplier", from: ["pending"], to: ["pending"] },
  { action: "award", actor: "buyer", from: ["pending"], to: ["awarded"] },
  { action: "decline", actor: "buyer", from: ["pending"], to: ["declined"] },
]);
