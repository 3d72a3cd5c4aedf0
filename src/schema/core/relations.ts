// Tenancy on the dashboard graph's relations (docs/dashboards.md, "The graph"): a relation reaches
// only rows the key could read through the target's root field, by the target domain's own read scope.
// - to-many relations and optional to-one relations filter in the query that loads them:
//   `query: relationQuery(scope, orderBy)` (a to-one target out of scope loads as null);
// - a required to-one relation cannot be filtered by Prisma: `rowsInScope` loads its rows by id within
//   the scope, one statement for every row of the level that asks (a DataLoader per request), read as JSON
//   as the lists' rows are (json-rows.ts findRows).
import DataLoader from "dataloader";
import type { Prisma } from "../../db.ts";
import type { Context } from "./context.ts";
import { ApiError } from "./errors.ts";
import { type Delegate, findRows } from "./json-rows.ts";
import { answeredRelation } from "./statement-answers.ts";
import { NOTHING } from "./tenancy.ts";
import type { Viewer } from "./viewer.ts";

type Scope<Where> = (viewer: Viewer) => Where;

/**
 * A domain's read scope for use on a relation. A domain that refuses the key outright (a 403, as
 * proposals and invoices do for internal teams) has nothing to show it through a relation either:
 * the relation is empty instead of failing the row that holds it.
 */
function readableWhere<Where>(scope: Scope<Where>, viewer: Viewer): Where | typeof NOTHING {
  try {
    return scope(viewer);
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return NOTHING;
    throw error;
  }
}

/** The `query` of a relation field: the target's read scope, and its order when it is a list. */
export const relationQuery =
  <Where, Order = never>(scope: Scope<Where>, orderBy?: Order) =>
  (_args: object, ctx: Context) => ({ where: readableWhere(scope, ctx.viewer), ...(orderBy ? { orderBy } : {}) });

type Order = Record<string, "asc" | "desc">;

/**
 * The options of a plugin-prisma relation field in `scope`: its `query` (relationQuery) and the same scope
 * and order declared for a statement that answers the field itself (statement-answers.ts).
 */
export const scopedRelation = <Where>(scope: Scope<Where>, orderBy?: Order | Order[]) => ({
  query: relationQuery(scope, orderBy),
  extensions: answeredRelation({
    where: (viewer) => readableWhere(scope, viewer),
    orderBy: orderBy && (Array.isArray(orderBy) ? orderBy : [orderBy]),
  }),
});

/** The declaration for statements of a relation loaded by `rowsInScope(…, scope, …)` (a required to-one). */
export const answeredInScope = <Where>(relation: string, scope: Scope<Where>) =>
  answeredRelation({ relation, where: (viewer) => readableWhere(scope, viewer) });

/** Per request: one loader per target model, scope and selection (the Prisma query of the GraphQL selection). */
const loaders = new WeakMap<Context, Map<string, DataLoader<number, unknown>>>();

/**
 * Rows of `model` by id, read within `scope` with the Prisma `query` that the GraphQL selection under
 * the field plans (so relations below are loaded in the same statements): every id asked for while a
 * request resolves one level is read by one statement; an id out of scope (or absent) loads as null.
 * For required to-one relations, which Prisma cannot filter, and for ids held in a list column.
 */
export function rowsInScope<Row>(
  ctx: Context,
  model: Prisma.ModelName,
  scope: Scope<unknown>,
  query: object,
): DataLoader<number, Row | null> {
  let byKey = loaders.get(ctx);
  if (!byKey) loaders.set(ctx, (byKey = new Map()));
  const key = `${model} ${scope.name} ${JSON.stringify(query)}`;
  let loader = byKey.get(key) as DataLoader<number, Row | null> | undefined;
  if (!loader) {
    const delegateName = model.charAt(0).toLowerCase() + model.slice(1);
    loader = new DataLoader(
      async (ids: readonly number[]) => {
        // ctx.db when the batch runs: a mutation's transaction is swapped in and out of the context.
        const delegate = (ctx.db as unknown as Record<string, Delegate>)[delegateName];
        const where = { AND: [{ id: { in: [...new Set(ids)] } }, readableWhere(scope, ctx.viewer)] };
        const rows = await findRows<{ id: number }>(delegate, where, [{ id: "asc" }], undefined, query);
        const byId = new Map(rows.map((row) => [row.id, row as Row]));
        return ids.map((id) => byId.get(id) ?? null);
      },
      // Batching only: a subscription's context outlives one execution, and its events must see fresh rows.
      { cache: false },
    );
    byKey.set(key, loader);
  }
  return loader;
}
