// Keyset paging of the dashboard graph's `<plural>Connection` root fields
// (docs/dashboards.md#relay-nodes-and-connections). A cursor holds the row's values of the ordering keys
// and its id, so the next page starts strictly after that row whatever was inserted or deleted meanwhile
// (no offset, no 10,000 window), and counting stays a separate statement that runs only when
// `totalCount` is asked for.
import type { GraphQLResolveInfo } from "graphql";
import { queryFromInfo } from "@pothos/plugin-prisma";
import { builder } from "./builder.ts";
import { type Delegate, findAnsweredRows, findRows } from "./json-rows.ts";
import { rowsAnswer } from "./statement-answers.ts";
import type { Context } from "./context.ts";
import { badInput, forbidden } from "./errors.ts";
import type { Interface } from "./interfaces.ts";
import { INTERFACE_OF_KIND } from "./viewer.ts";
import { checkPageSize, MAX_PAGE_SIZE, type PageSizeArgs } from "./connection.ts";
import type { FilterDefinition } from "./filters.ts";
import { type OrderDefinition, type OrderKey, orderKeysOf } from "./ordering.ts";

interface ConnectionArgs extends PageSizeArgs {
  after?: string | null;
  before?: string | null;
  filter?: unknown;
  orderBy?: readonly { field: string; direction: "asc" | "desc" }[] | null;
}

type Where = Record<string, unknown>;

// A cursor: the ordering's fields (so a cursor of another ordering is refused) and the row's values.
// Dates are tagged so they come back as dates; decimals travel as their text, which Prisma compares exactly.
const encodeValue = (v: unknown) => (v instanceof Date ? { d: v.toISOString() } : v);
const decodeValue = (v: unknown) => (v && typeof v === "object" && "d" in v ? new Date(String(v.d)) : v);

function encodeCursor(keys: readonly OrderKey[], row: Record<string, unknown>): string {
  const cursor = { k: keys.map((k) => k.field).join(","), v: keys.map((k) => encodeValue(row[k.field])) };
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

function decodeCursor(keys: readonly OrderKey[], cursor: string, name: string): unknown[] {
  let parsed: { k?: unknown; v?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw badInput(`${name} is not a cursor of this connection`, name);
  }
  if (typeof parsed?.k !== "string" || !Array.isArray(parsed.v))
    throw badInput(`${name} is not a cursor of this connection`, name);
  if (parsed.k !== keys.map((k) => k.field).join(",") || parsed.v.length !== keys.length)
    throw badInput(`${name} is a cursor of another orderBy; use the same orderBy as the page it came from`, name);
  return parsed.v.map(decodeValue);
}

/** Rows strictly after `values` in the order of `keys`: (a, b, id) > (va, vb, vid), each key in its direction. */
function keysetAfter(keys: readonly OrderKey[], values: readonly unknown[]): Where {
  const branches = keys.flatMap((key, i) => {
    const beyond = beyondValue(key, values[i]);
    return beyond ? [{ AND: [...keys.slice(0, i).map((k, j) => ({ [k.field]: values[j] })), beyond] }] : [];
  });
  // The first key's bound on its own too (a ≥ va), which an index on it can start its scan from.
  const [first] = keys;
  if (keys.length === 1 || typeof values[0] === "boolean") return { OR: branches };
  return { AND: [{ [first.field]: { [first.direction === "asc" ? "gte" : "lte"]: values[0] } }, { OR: branches }] };
}

/** Rows beyond `value` in one key's direction; undefined when none can be (Prisma has no gt/lt on booleans). */
function beyondValue(key: OrderKey, value: unknown): Where | undefined {
  if (typeof value !== "boolean") return { [key.field]: { [key.direction === "asc" ? "gt" : "lt"]: value } };
  return value === (key.direction === "asc") ? undefined : { [key.field]: !value };
}

const reversed = (keys: readonly OrderKey[]): OrderKey[] =>
  keys.map((k) => ({ field: k.field, direction: k.direction === "asc" ? "desc" : "asc" }));

/** One page of a connection as plugin-relay's connection type reads it, and its lazily counted total. */
interface ConnectionPage {
  edges: { cursor: string; node: unknown }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: () => Promise<number>;
}

/** A page's rows as a connection shows them: the node, and the row's values of the ordering keys (its cursor). */
interface PageRow {
  node: unknown;
  keys: Record<string, unknown>;
}

/**
 * The rows of a page, and, when their nodes are the answer's text (statement-answers.ts
 * RowsAnswer.asText), what writes the page's edges into the answer: GraphQL then completes no edge.
 */
type ReadRows = (
  where: Where,
  orderBy: Record<string, "asc" | "desc">[],
  take: number,
) => Promise<{ rows: PageRow[]; writeEdges?: (page: PageRow[]) => void }>;

async function keysetPage(
  table: Delegate,
  where: Where,
  keys: readonly OrderKey[],
  args: ConnectionArgs,
  read: ReadRows,
): Promise<ConnectionPage> {
  const size = checkPageSize(args);
  const backward = args.last != null || args.before != null;
  if (backward ? args.after != null || args.first != null : args.before != null)
    throw badInput("page forwards with first and after, or backwards with last and before");
  const cursor = backward ? args.before : args.after;
  const order = backward ? reversed(keys) : keys;
  const conditions = [where];
  if (cursor != null) conditions.push(keysetAfter(order, decodeCursor(keys, cursor, backward ? "before" : "after")));
  // One row more than the page tells whether another page follows.
  const orderBy = order.map((k) => ({ [k.field]: k.direction }));
  const { rows, writeEdges } = await read({ AND: conditions }, orderBy, size + 1);
  const more = rows.length > size;
  const page = rows.slice(0, size);
  if (backward) page.reverse();
  // Cursors are made only when read: a board that selects no cursor does not encode 25 of them.
  const cursorOf = (row: PageRow | undefined) => (row ? encodeCursor(keys, row.keys) : null);
  writeEdges?.(page);
  const edges = writeEdges
    ? []
    : page.map((row) => ({
        node: row.node,
        get cursor() {
          return encodeCursor(keys, row.keys);
        },
      }));
  let total: Promise<number> | undefined;
  return {
    edges,
    pageInfo: {
      hasNextPage: backward ? cursor != null : more,
      hasPreviousPage: backward ? more : cursor != null,
      get startCursor() {
        return cursorOf(page[0]);
      },
      get endCursor() {
        return cursorOf(page.at(-1));
      },
    },
    totalCount: () => {
      total ??= table.count({ where });
      return total;
    },
  };
}

/**
 * How a connection's rows are read: answered by their statement when the node's selection allows it
 * (statement-answers.ts), else loaded with the Prisma query the selection plans and resolved field by field.
 */
function rowsReader(table: Delegate, ctx: Context, info: GraphQLResolveInfo, keys: readonly OrderKey[]): ReadRows {
  const answer = rowsAnswer(ctx, info, ["edges", "node"]);
  const asText = answer?.asText;
  const fields = keys.map((k) => k.field);
  return async (where, orderBy, take) => {
    const answered = answer && (await findAnsweredRows(table, where, orderBy, take, fields, answer.json, !!asText));
    if (answered && asText) {
      const rows = answered.map((row) => ({ node: row.answer, keys: row.keys }));
      return { rows, writeEdges: (page: PageRow[]) => asText.write(page.map((row) => row.node as string)) };
    }
    if (answered) {
      answer.answered(answered.map((row) => row.answer));
      return { rows: answered.map((row) => ({ node: row.answer, keys: row.keys })) };
    }
    const query = queryFromInfo({ context: ctx, info, path: ["edges", "node"] });
    const rows = await findRows<Record<string, unknown>>(table, where, orderBy, take, query);
    return { rows: rows.map((row) => ({ node: row, keys: row })) };
  };
}

export interface ListConnection {
  /** The node type (a prismaNode or prismaObject ref); its name names the connection and edge types. */
  type: any;
  typeName: string;
  description: string;
  /** The interfaces whose keys may read it: those of the REST list it sits beside. */
  interfaces: readonly Interface[];
  table: (ctx: Context) => Delegate;
  /** The key's read scope, exactly as the REST list applies it. */
  scope: (ctx: Context) => Where | Promise<Where>;
  filter: FilterDefinition;
  order: OrderDefinition;
}

const connectionTypes = new Map<string, any>();

/** `<Type>Connection` (with totalCount) and `<Type>Edge`, made once per node type and shared by its connections. */
function connectionType(type: any, typeName: string) {
  let ref = connectionTypes.get(typeName);
  if (!ref) {
    ref = builder.connectionObject(
      {
        type,
        name: `${typeName}Connection`,
        description: `A page of ${typeName} rows and where it sits in the whole list`,
        fields: (f: any) => ({
          totalCount: f.int({
            description: "Rows matching the filter in the key's scope, across all pages",
            resolve: (page: ConnectionPage) => page.totalCount(),
          }),
        }),
      } as any,
      { name: `${typeName}Edge`, description: `A ${typeName} and its cursor` },
    );
    connectionTypes.set(typeName, ref);
  }
  return ref;
}

/**
 * A graphql-only `<plural>Connection` root field beside a REST list: first/after/last/before, the typed
 * filter and orderBy, `edges { cursor node }`, `pageInfo` and `totalCount`, keyset-paged in the key's scope.
 */
export function listConnection(name: string, c: ListConnection): void {
  builder.queryField(name, (t) =>
    t.connection(
      {
        subGraphs: ["graphql"],
        description: `${c.description} Keyset-paged: at most ${MAX_PAGE_SIZE} per page (first or last above it is a 400).`,
        type: c.type,
        args: {
          filter: t.arg({ type: c.filter.input, description: "Narrows the list within the key's scope" }),
          orderBy: t.arg({
            type: [c.order.input],
            description: `Sort keys, most significant first; ties are broken by id. Default: ${c.order.defaultText}`,
          }),
        },
        resolve: async (_root: unknown, args: ConnectionArgs, ctx: Context, info: GraphQLResolveInfo) => {
          if (!c.interfaces.includes(INTERFACE_OF_KIND[ctx.viewer.kind]))
            throw forbidden(`${name} is not available to ${ctx.viewer.kind} keys`);
          const where = { AND: [await c.scope(ctx), await c.filter.where(ctx, args.filter)] };
          const table = c.table(ctx);
          const keys = orderKeysOf(c.order, args.orderBy);
          return keysetPage(table, where, keys, args, rowsReader(table, ctx, info, keys));
        },
      } as any,
      connectionType(c.type, c.typeName),
    ),
  );
}
