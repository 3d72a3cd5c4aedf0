// Typed ordering of the dashboard graph's connections: `orderBy: [<Type>Order!]`, each key an input
// `{ field: <Type>OrderField!, direction: OrderDirection! }`, several keys most significant first, and
// the id as the last key so the order is total (the keyset of core/connection.ts needs a unique order).
// Only columns that are never null may be order fields (a keyset comparison with NULL matches nothing),
// and no enums (Prisma compares them only for equality).
import { builder } from "./builder.ts";
import { columnOf } from "./filters.ts";

export interface OrderKey {
  field: string;
  direction: "asc" | "desc";
}

const OrderDirection = builder.enumType("OrderDirection", {
  subGraphs: ["graphql"],
  description: "Sort direction of one orderBy key",
  values: {
    asc: { value: "asc", description: "Smallest (earliest, A) first" },
    desc: { value: "desc", description: "Largest (latest, Z) first" },
  } as const,
});

export interface OrderDefinition {
  input: any;
  /** The ordering without orderBy, before the id tiebreak. */
  defaults: readonly OrderKey[];
  /** The default as the argument's description names it. */
  defaultText: string;
}

/**
 * The `<type>OrderField` enum and `<type>Order` input of a list over the Prisma model `model`: `fields`
 * maps each orderable column to its description. Fails the schema build if a column may be null.
 */
export function defineOrder(
  type: string,
  model: string,
  fields: Record<string, string>,
  defaults: readonly OrderKey[],
): OrderDefinition {
  for (const name of Object.keys(fields)) {
    const column = columnOf(model, name);
    // Prisma compares enums only for equality, so an enum column cannot be a keyset key.
    if (!column.isRequired || column.isList || column.kind !== "scalar")
      throw new Error(`${type}OrderField ${name}: ${model}.${name} must be a required scalar column, not an enum`);
  }
  const fieldEnum = builder.enumType(`${type}OrderField`, {
    subGraphs: ["graphql"],
    description: `What ${type} rows can be sorted by`,
    values: Object.fromEntries(
      Object.entries(fields).map(([name, description]) => [name, { value: name, description }]),
    ),
  });
  const input = builder.inputType(`${type}Order`, {
    subGraphs: ["graphql"],
    description: `One sort key of a ${type} list`,
    fields: (t) => ({
      field: t.field({ type: fieldEnum, required: true, description: "The column to sort by" }),
      direction: t.field({ type: OrderDirection, required: true, description: "Ascending or descending" }),
    }),
  });
  return { input, defaults, defaultText: defaults.map((k) => `${k.field} ${k.direction}`).join(", ") || "id asc" };
}

/** The keys to sort by: the requested ones (or the defaults), then id unless already given. */
export function orderKeysOf(order: OrderDefinition, requested: readonly OrderKey[] | null | undefined): OrderKey[] {
  const keys = requested?.length ? [...requested] : [...order.defaults];
  const seen = new Set<string>();
  const distinct = keys.filter((k) => !seen.has(k.field) && seen.add(k.field));
  if (!seen.has("id")) distinct.push({ field: "id", direction: distinct.at(-1)?.direction ?? "asc" });
  return distinct;
}
