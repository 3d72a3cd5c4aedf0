// Typed filters of the dashboard graph's connections (docs/dashboards.md#relay-nodes-and-connections):
// a domain declares its `<Type>Filter` once as a table of fields (which column, what kind of match) and
// gets both the GraphQL input type and its translation to a Prisma `where`, the same for every list. The
// key's scope is ANDed by the caller (core/connection.ts), so a filter only ever narrows it. Every value
// is a typed GraphQL input, so variables work anywhere inside a filter.
import { builder } from "./builder.ts";
import type { Context } from "./context.ts";
import { type DateTimeRangeValue, DateTimeRange, rangeWhere } from "./ranges.ts";
import { DATAMODEL } from "./datamodel.ts";

type Where = Record<string, unknown>;

const IN_LIST = "Any of these (absent: no narrowing; an empty list matches nothing)";

/** How one filter field matches. */
export type FilterField =
  | { kind: "ids" | "range" | "flag"; column: string; description: string }
  | { kind: "enum"; column: string; type: any; description: string }
  | { kind: "text"; columns: readonly string[]; description: string };

/** The kinds of filter field, each read the same way on every list. */
export const match = {
  /** Integer ids: the column is any of them. */
  ids: (column: string, description: string): FilterField => ({ kind: "ids", column, description }),
  /** Values of a GraphQL enum: the column is any of them. */
  oneOf: (column: string, type: any, description: string): FilterField => ({ kind: "enum", column, type, description }),
  /** A DateTimeRange (from inclusive, to exclusive) on a timestamp column. */
  range: (column: string, description: string): FilterField => ({ kind: "range", column, description }),
  /** A boolean column equals the value. */
  flag: (column: string, description: string): FilterField => ({ kind: "flag", column, description }),
  /** Text found (any case) in any of the columns. */
  text: (columns: readonly string[], description: string): FilterField => ({ kind: "text", columns, description }),
};

/** A column of a Prisma model, or a schema build failure naming what is wrong. */
export function columnOf(model: string, name: string) {
  const column = DATAMODEL.datamodel.models[model]?.fields.find((f) => f.name === name);
  if (!column || column.kind === "object") throw new Error(`${model} has no column ${name}`);
  return column;
}

export interface FilterDefinition {
  input: any;
  /** The filter value as a Prisma `where` (an empty object: no narrowing). */
  where: (ctx: Context, filter: unknown) => Promise<Where>;
}

function inputField(t: any, field: FilterField) {
  const description =
    field.kind === "ids" || field.kind === "enum" ? `${field.description}. ${IN_LIST}` : field.description;
  switch (field.kind) {
    case "ids":
      return t.intList({ description });
    case "enum":
      return t.field({ type: [field.type], description });
    case "range":
      return t.field({ type: DateTimeRange, description: `${description} (from inclusive, to exclusive)` });
    case "flag":
      return t.boolean({ description });
    case "text":
      return t.string({ description });
  }
}

async function fieldWhere(ctx: Context, name: string, field: FilterField, value: unknown): Promise<Where | undefined> {
  switch (field.kind) {
    case "ids":
    case "enum":
      return { [field.column]: { in: [...(value as unknown[])] } };
    case "range": {
      const range = rangeWhere(value as DateTimeRangeValue, name);
      return range && { [field.column]: range };
    }
    case "flag":
      return { [field.column]: value };
    case "text": {
      const text = String(value).trim();
      if (!text) return undefined;
      return { OR: field.columns.map((column) => ({ [column]: { contains: text, mode: "insensitive" } })) };
    }
  }
}

/**
 * The `<Type>Filter` input (graphql sub-graph only) of a list and its translation: every given field
 * must match (AND); absent or null fields do not narrow.
 */
export function defineFilter(
  name: string,
  model: string,
  description: string,
  fields: Record<string, FilterField>,
): FilterDefinition {
  for (const field of Object.values(fields)) {
    if ("column" in field) columnOf(model, field.column);
    if ("columns" in field) for (const column of field.columns) columnOf(model, column);
  }
  const input = builder.inputType(name, {
    subGraphs: ["graphql"],
    description: `${description}. Narrows the list within the key's scope (never widens it); every given field must match.`,
    fields: (t) => Object.fromEntries(Object.entries(fields).map(([key, field]) => [key, inputField(t, field)])),
  });
  return {
    input,
    where: async (ctx, filter) => {
      if (!filter) return {};
      const conditions: Where[] = [];
      for (const [key, value] of Object.entries(filter as Record<string, unknown>)) {
        if (value === null || value === undefined || !Object.hasOwn(fields, key)) continue;
        const condition = await fieldWhere(ctx, key, fields[key], value);
        if (condition) conditions.push(condition);
      }
      return conditions.length ? { AND: conditions } : {};
    },
  };
}
