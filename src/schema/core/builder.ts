// The one SchemaBuilder: plugins, the context type and the scalars every domain shares.
import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import RelayPlugin from "@pothos/plugin-relay";
import SubGraphPlugin from "@pothos/plugin-sub-graph";
import AnsweredFieldsPlugin from "./answered-fields.ts";
import StablePathsPlugin from "./stable-paths.ts";
import { GraphQLScalarType, Kind } from "graphql";
import type PrismaTypes from "../../generated/pothos-types.ts";
import { DATAMODEL } from "./datamodel.ts";
import type { Context } from "./context.ts";
import type { SubGraph } from "./interfaces.ts";
import { badInput } from "./errors.ts";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./connection.ts";

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: Context;
  SubGraphs: SubGraph;
  DefaultFieldNullability: false;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    DateTime: { Input: Date; Output: Date | string };
    Date: { Input: Date; Output: Date | string };
    IdList: { Input: number[]; Output: number[] };
  };
}>({
  // answered-fields first: an answered object resolves nothing below it. Then stable-paths: its wrapper
  // runs outside plugin-prisma's, which reads the path it gives.
  plugins: [AnsweredFieldsPlugin, StablePathsPlugin, PrismaPlugin, RelayPlugin, SubGraphPlugin],
  defaultFieldNullability: false,
  // The client is taken from the context, so each test database or instance brings its own.
  prisma: { client: (ctx) => ctx.db, dmmf: DATAMODEL, filterConnectionTotalCount: true },
  subGraphs: { defaultForTypes: ["buyer", "supplier", "partners", "graphql"], fieldsInheritFromTypes: true },
  // Relay for the dashboard graph only (docs/dashboards.md): the REST types keep their integer \`id\`, so
  // the Node interface's global id is the field \`globalId\` (Relay's compiler: nodeInterfaceIdField), and
  // the Node/PageInfo types, node/nodes and every connection live in the graphql sub-graph alone.
  relay: {
    idFieldName: "globalId",
    idFieldOptions: { subGraphs: ["graphql"], description: "Opaque global id: refetch with node(id:)" },
    clientMutationId: "omit",
    cursorType: "String",
    nodeTypeOptions: { subGraphs: ["graphql"], description: "An object that node(id:) can refetch by its globalId" },
    pageInfoTypeOptions: { subGraphs: ["graphql"], description: "Where a page of a connection sits in the whole list" },
    // The root fields "node" and "nodes" are plugin-relay's (it fixes their names); their options:
    nodeQueryOptions: {
      subGraphs: ["graphql"],
      description: "Any object by its globalId; null when not readable",
      args: { id: { description: "A globalId" } },
    },
    nodesQueryOptions: {
      subGraphs: ["graphql"],
      description: "Objects by globalId, in the order asked",
      args: { ids: { description: "globalIds; each one not readable answers null in its place" } },
    },
    defaultConnectionTypeOptions: { subGraphs: ["graphql"] },
    defaultEdgeTypeOptions: { subGraphs: ["graphql"] },
    firstArgOptions: {
      description: `Page forwards: this many rows after \`after\` (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE})`,
    },
    afterArgOptions: { description: "Cursor of the row the forward page starts after (an edge's cursor)" },
    lastArgOptions: { description: `Page backwards: this many rows before \`before\` (at most ${MAX_PAGE_SIZE})` },
    beforeArgOptions: { description: "Cursor of the row the backward page ends before (an edge's cursor)" },
    edgesFieldOptions: { description: "The page's rows with their cursors, in order" },
    pageInfoFieldOptions: { description: "Whether more pages follow, and the cursors to ask for them" },
    cursorFieldOptions: { description: "Opaque position of this row: pass it as after or before" },
    nodeFieldOptions: { description: "The row" },
    hasNextPageFieldOptions: { description: "Rows follow the last one of this page" },
    hasPreviousPageFieldOptions: { description: "Rows precede the first one of this page" },
    startCursorFieldOptions: { description: "Cursor of the page's first row (null when empty)" },
    endCursorFieldOptions: { description: "Cursor of the page's last row (null when empty)" },
  },
});

builder.queryType({
  description: "Reads; a field that is also a REST route answers only keys of that route's interfaces",
});
builder.mutationType({ description: "Writes: creates, updates and lifecycle actions, each under its permission" });
// Live events (src/schema/live/subscriptions.ts): GraphQL only, never in the REST cuts.
builder.subscriptionType({
  subGraphs: ["graphql"],
  description: "Live work order events (graphql-ws, or server-sent events on /graphql)",
});

builder.addScalarType(
  "JSON",
  new GraphQLScalarType({
    name: "JSON",
    description: "Any JSON value",
    serialize: (v) => v,
    parseValue: (v) => v,
    parseLiteral: function parse(ast): unknown {
      switch (ast.kind) {
        case Kind.STRING:
        case Kind.BOOLEAN:
          return ast.value;
        case Kind.INT:
        case Kind.FLOAT:
          return Number(ast.value);
        case Kind.NULL:
          return null;
        case Kind.LIST:
          return ast.values.map(parse);
        case Kind.OBJECT:
          return Object.fromEntries(ast.fields.map((f) => [f.name.value, parse(f.value)]));
        default:
          return undefined;
      }
    },
  }),
);

function parseTimestamp(value: unknown, dateOnly: boolean): Date {
  const pattern = dateOnly
    ? /^\d{4}-\d{2}-\d{2}$/
    : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
  if (typeof value !== "string" || !pattern.test(value) || Number.isNaN(Date.parse(value))) {
    throw badInput(
      dateOnly
        ? `must be a calendar date (YYYY-MM-DD), got ${JSON.stringify(value)}`
        : `must be an ISO 8601 timestamp with a UTC offset, got ${JSON.stringify(value)}`,
    );
  }
  return new Date(dateOnly ? `${value}T00:00:00Z` : value);
}

builder.scalarType("DateTime", {
  description: "ISO 8601 timestamp with a UTC offset",
  serialize: (v) => (v instanceof Date ? v.toISOString() : String(v)),
  parseValue: (v) => parseTimestamp(v, false),
});

builder.scalarType("Date", {
  description: "Calendar date, YYYY-MM-DD",
  serialize: (v) => (v instanceof Date ? v.toISOString().slice(0, 10) : String(v)),
  parseValue: (v) => parseTimestamp(v, true),
});

builder.scalarType("IdList", {
  description: "Comma-separated integer ids (in a path), or a list of integers",
  serialize: (v) => v,
  parseValue: (v) => {
    const parts = Array.isArray(v) ? v : String(v).split(",");
    return parts.map((p) => {
      const text = String(p).trim();
      if (!/^\d{1,9}$/.test(text)) throw badInput(`must be comma-separated whole numbers, got ${JSON.stringify(p)}`);
      return Number(text);
    });
  },
});
