// The problem types a buyer company configures (GET /work_order/problem_types).
import type { Context } from "../../core/context.ts";
import type { Viewer } from "../../core/viewer.ts";
import { findPage, type ListArgs, type ListSpec } from "../../core/list.ts";

export const PROBLEM_TYPE_LIST: ListSpec = {
  filters: { id: "int", name: "string" },
  sortable: ["id", "name"],
  defaultSort: { field: "id", order: "asc" },
};

/** Problem types are read by buyer keys, their own company's. */
export const problemTypeScope = (viewer: Viewer) => ({ buyerCompanyId: viewer.buyerCompanyId ?? -1 });

export const problemTypePage = (ctx: Context, args: ListArgs, query: object) =>
  findPage(ctx.db.problemType, problemTypeScope(ctx.viewer), args, PROBLEM_TYPE_LIST, query);
