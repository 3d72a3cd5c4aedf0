// The contract's list rules, written once: offset/limit (default 10, max 25 or a per-route clamp),
// sort_by/order, and every other query parameter as a field filter where a comma means "any of".
// Filters are ANDed with the tenant scope by the caller; they can never widen it.
import type { GraphQLResolveInfo } from "graphql";
import { queryFromInfo } from "@pothos/plugin-prisma";
import { type Db, Prisma, sqlRows } from "../../db.ts";
import { builder } from "./builder.ts";
import { badInput } from "./errors.ts";
import { type Delegate, pageStatement, pooledModel } from "./json-rows.ts";
import type { RowsAnswer } from "./statement-answers.ts";

import type { FilterKind } from "./interfaces.ts";

export type { FilterKind };

export interface ListSpec {
  /** Filterable fields and how their text is read. */
  filters: Record<string, FilterKind>;
  /** Fields that sort_by accepts. */
  sortable: readonly string[];
  defaultSort: { field: string; order: "asc" | "desc" };
  maxLimit?: number;
}

export interface ListArgs {
  offset?: number | null;
  limit?: number | null;
  sort_by?: string | null;
  order?: string | null;
  filter?: unknown;
}

/** A list spec as the route documents it (RestRoute.query). */
export const listQuery = (spec: Pick<ListSpec, "filters" | "sortable">) => ({
  filters: spec.filters,
  sortable: spec.sortable,
});

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 25;

export const listArgs = builder.args((t) => ({
  offset: t.int({ description: "Rows to skip (default 0)" }),
  limit: t.int({ description: "Page size (default 10, maximum 25, location lists 10; larger values are reduced)" }),
  sort_by: t.string({ description: "Field to sort by" }),
  order: t.string({ description: "asc or desc" }),
  filter: t.field({
    type: "JSON",
    description: 'Field filters: {field: value | [values] | "a,b"}; comma means any of',
  }),
}));

/** Ids and integer columns are 32-bit in the database; anything outside is a 400, not a failed query. */
export const isInt32 = (n: unknown): n is number =>
  Number.isInteger(n) && (n as number) >= -2_147_483_648 && (n as number) <= 2_147_483_647;

function readValue(field: string, kind: FilterKind, raw: unknown): unknown {
  const text = typeof raw === "string" ? raw.trim() : raw;
  switch (kind) {
    case "int": {
      const n = typeof text === "number" ? text : /^-?\d{1,10}$/.test(String(text)) ? Number(text) : NaN;
      if (!isInt32(n))
        throw badInput(`filter ${field} expects whole numbers up to 2147483647, got ${JSON.stringify(raw)}`);
      return n;
    }
    case "boolean":
      if (text === true || text === "true") return true;
      if (text === false || text === "false") return false;
      throw badInput(`filter ${field} expects true or false, got ${JSON.stringify(raw)}`);
    case "datetime": {
      const d = new Date(String(text));
      if (typeof text !== "string" || Number.isNaN(d.getTime()))
        throw badInput(`filter ${field} expects an ISO 8601 timestamp`);
      return d;
    }
    default:
      if (typeof text !== "string" && typeof text !== "number") throw badInput(`filter ${field} expects text`);
      return String(text);
  }
}

/** Turns the filter argument into a Prisma `where` over the declared fields; unknown fields are a 400. */
export function filterWhere(filter: unknown, spec: Pick<ListSpec, "filters">): Record<string, unknown> {
  if (filter === undefined || filter === null) return {};
  if (typeof filter !== "object" || Array.isArray(filter)) throw badInput("filter must be an object of field filters");
  const where: Record<string, unknown> = {};
  for (const [field, raw] of Object.entries(filter as Record<string, unknown>)) {
    const kind = Object.hasOwn(spec.filters, field) ? spec.filters[field] : undefined;
    if (!kind) {
      const known = Object.keys(spec.filters).join(", ") || "none";
      throw badInput(`unknown filter ${JSON.stringify(field)}; filterable fields: ${known}`);
    }
    const items = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(",") : [raw];
    const values = items.filter((v) => v !== "").map((v) => readValue(field, kind, v));
    if (values.length === 0) throw badInput(`filter ${field} has no value`);
    where[field] = values.length === 1 ? values[0] : { in: values };
  }
  return where;
}

export interface Page {
  skip: number;
  take: number;
  orderBy: Record<string, "asc" | "desc">[];
  where: Record<string, unknown>;
}

/** Validates and normalises the list arguments. */
export function pageOf(args: ListArgs, spec: ListSpec): Page {
  const offset = args.offset ?? 0;
  if (offset < 0) throw badInput("offset must not be negative");
  const limit = args.limit ?? DEFAULT_LIMIT;
  if (limit < 1) throw badInput("limit must be at least 1");
  const take = Math.min(limit, spec.maxLimit ?? MAX_LIMIT);
  return { skip: offset, take, orderBy: orderOf(args, spec), where: filterWhere(args.filter, spec) };
}

function orderOf(args: Pick<ListArgs, "sort_by" | "order">, spec: ListSpec): Page["orderBy"] {
  const field = args.sort_by ?? spec.defaultSort.field;
  if (!spec.sortable.includes(field)) {
    throw badInput(`cannot sort by ${JSON.stringify(field)}; sortable fields: ${spec.sortable.join(", ")}`);
  }
  const order = (args.order ?? (args.sort_by ? "asc" : spec.defaultSort.order)).toLowerCase();
  if (order !== "asc" && order !== "desc") throw badInput('order must be "asc" or "desc"');
  // id breaks ties so pages never overlap or skip rows.
  return field === "id" ? [{ id: order }] : [{ [field]: order }, { id: order }];
}

/** The `{data, count}` shape of every list field. */
export function pageType<T extends object>(name: string, item: any) {
  return builder.objectType(builder.objectRef<{ data: T[]; count: number }>(`${name}Page`), {
    description: `One page of ${name} records and how many match in all`,
    fields: (t) => ({
      data: t.field({
        type: [item],
        description: "The rows of this page, in the requested order",
        resolve: (p) => p.data as any,
      }),
      count: t.exposeInt("count", { description: "Total matching rows, not the page length" }),
    }),
  });
}

/**
 * A write a read carries (the REST notes list's read mark): a data-modifying statement run in the page's
 * own statement (a WITH) when the page is one, else beside Prisma's reads, on `db`.
 */
export interface Alongside {
  sql: Prisma.Sql;
  db: Db;
}

/**
 * One page and the total. In one statement, the rows read as JSON (json-rows.ts), when the client is
 * not a transaction's (whose writes the pool would not see) and the selection, scope and filters are
 * what that SQL answers exactly; otherwise with Prisma, in two statements whatever the page size.
 * `answer`: the rows written as the answer's JSON by that statement (statement-answers.ts rowsAnswer).
 */
export async function findPage<T = any>(
  delegate: Delegate,
  scope: Record<string, unknown>,
  args: ListArgs,
  spec: ListSpec,
  query: object = {},
  alongside?: Alongside,
  answer?: RowsAnswer,
): Promise<{ data: T[]; count: number }> {
  const page = pageOf(args, spec);
  const where = { AND: [scope, page.where] };
  const pooled = pooledModel(delegate);
  const asText = answer?.asText;
  const statement = pooled && pageStatement(pooled.model, where, page, query, answer?.json, !!asText);
  if (pooled && statement) {
    const sql = alongside ? Prisma.sql`WITH alongside AS (${alongside.sql}) ${statement.sql}` : statement.sql;
    const [{ count, rows }] = await sqlRows<{ count: number; rows: unknown[] | string }>(pooled.db, sql);
    if (asText) {
      asText.write(rows as string);
      return { data: [], count };
    }
    answer?.answered(rows as unknown[]);
    return { data: statement.read<T>(rows as unknown[]), count };
  }
  const [data, count] = await Promise.all([
    delegate.findMany({ ...query, where, orderBy: page.orderBy, skip: page.skip, take: page.take }),
    delegate.count({ where }),
    alongside?.db.$executeRaw(alongside.sql),
  ]);
  return { data, count };
}

/** The Prisma include/select that a page's `data` selection needs (relations asked for in GraphQL). */
export const pageQuery = (ctx: object, info: GraphQLResolveInfo) =>
  queryFromInfo({ context: ctx, info, path: ["data"] });

/** A `checkFilter` (read-routes) for an enum column: every value of `field` must be one of `values` (400 otherwise). */
export function enumFilter(field: string, values: readonly string[]) {
  return (filter: unknown): unknown => {
    const raw = (filter as Record<string, unknown> | null | undefined)?.[field];
    if (raw === undefined || raw === null) return filter;
    const given = (Array.isArray(raw) ? raw : String(raw).split(",")).map((v) => String(v).trim()).filter(Boolean);
    const bad = given.filter((v) => !values.includes(v));
    if (bad.length) throw badInput(`filter ${field} expects one of ${values.join(", ")}, got ${bad.join(", ")}`);
    return filter;
  };
}
