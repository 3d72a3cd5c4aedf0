// The problem types a buyer company configures (GET /work_order/problem_types).
import type { Context } from "../../core/context.ts";
import { findPage, type ListArgs, type ListSpec } from "../../core/list.ts";

export const PROBLEM_TYPE_LIST: ListSpec = {
  filters: { id: "int", name: "string" },
  sortable: ["id", "name"],
  defaultSort: { field: "id", order: "asc" },
};

export const problemTypePage = (ctx: Context, args: ListArgs, query: object) =>
  findPage(ctx.db.problemType, { buyerCompanyId: ctx.viewer.buyerCompanyId! }, args, PROBLEM_TYPE_LIST, query);
