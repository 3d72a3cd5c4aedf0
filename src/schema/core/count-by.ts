// `count_by` (docs/decisions.md#counts): the list's filters, answering {count: N}, or with group_by=<field>
// [{value, count}, …] ordered by value.
import { builder } from "./builder.ts";
import { badInput } from "./errors.ts";
import { filterWhere, type ListSpec } from "./list.ts";

interface Countable {
  count(args: any): Promise<number>;
  groupBy(args: any): Promise<any[]>;
}

export const countByArgs = builder.args((t) => ({
  group_by: t.string({ description: "Field to group the count by" }),
  filter: t.field({ type: "JSON", description: "Field filters, as on the list" }),
}));

export async function countBy(
  delegate: Countable,
  scope: Record<string, unknown>,
  args: { group_by?: string | null; filter?: unknown },
  spec: Pick<ListSpec, "filters">,
): Promise<{ count: number } | { value: unknown; count: number }[]> {
  const where = { AND: [scope, filterWhere(args.filter, spec)] };
  if (!args.group_by) return { count: await delegate.count({ where }) };
  const field = args.group_by;
  if (!Object.hasOwn(spec.filters, field))
    throw badInput(
      `cannot group by ${JSON.stringify(field)}; groupable fields: ${Object.keys(spec.filters).join(", ")}`,
    );
  const groups = await delegate.groupBy({ by: [field], where, _count: { _all: true }, orderBy: { [field]: "asc" } });
  return groups.map((g) => ({ value: g[field], count: g._count._all }));
}
