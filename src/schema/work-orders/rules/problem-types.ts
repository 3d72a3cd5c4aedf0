// The problem types a buyer company configures (GET /work_order/problem_types).
import type { Context } from "../../core/context.ts";
import { findPage, type ListArgs, type ListSpec } from "../../core/list.ts";
import { NOTHING } from "../../core/tenancy.ts";
import type { Viewer } from "../../core/viewer.ts";

export const PROBLEM_TYPE_LIST: ListSpec = {
  filters: { id: "int", name: "string" },
  sortable: ["id", "name"],
  defaultSort: { field: "id", order: "asc" },
};

/** Buyer keys read their company's problem types; the catalog is a buyer route, so other keys read none. */
export const problemTypeScope = (viewer: Viewer) =>
  viewer.kind === "buyer" ? { buyerCompanyId: viewer.buyerCompanyId ?? -1 } : NOTHING;

export const problemTypePage = (ctx: Context, args: ListArgs, query: object) =>
  findPage(ctx.db.problemType, problemTypeScope(ctx.viewer), args, PROBLEM_TYPE_LIST, query);
