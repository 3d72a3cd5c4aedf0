// Page sizes of the dashboard graph's cursor connections (docs/dashboards.md#relay-nodes-and-connections),
// the one rule every connection shares: asking for more than the maximum is a 400 naming it, never a
// silently shorter page. Root `*Connection` fields (core/keyset.ts) call checkPageSize; to-many relations
// (`t.relatedConnection`) spread `connectionLimits` into their options.
import { badInput } from "./errors.ts";

/** The largest `first`/`last` a connection answers; more is a 400, never a silent cut. */
export const MAX_PAGE_SIZE = 25;
/** The page size when neither `first` nor `last` is given. */
export const DEFAULT_PAGE_SIZE = 10;

export interface PageSizeArgs {
  first?: number | null;
  last?: number | null;
}

/** The page size a connection's arguments ask for, checked against MAX_PAGE_SIZE (400 beyond it). */
export function checkPageSize(args: PageSizeArgs): number {
  for (const name of ["first", "last"] as const) {
    const size = args[name];
    if (size === null || size === undefined) continue;
    if (size < 0) throw badInput(`${name} must not be negative, got ${size}`, name);
    if (size > MAX_PAGE_SIZE)
      throw badInput(`${name} must be at most ${MAX_PAGE_SIZE} (the maximum page size), got ${size}`, name);
  }
  if (args.first != null && args.last != null) throw badInput("give first or last, not both");
  return args.first ?? args.last ?? DEFAULT_PAGE_SIZE;
}

/** The size options of every connection field: the default page, and the maximum checked by checkPageSize. */
export const connectionLimits = {
  defaultSize: DEFAULT_PAGE_SIZE,
  maxSize: (args: PageSizeArgs) => {
    checkPageSize(args);
    return MAX_PAGE_SIZE;
  },
};

/**
 * The connection and edge type options of a to-many relation (`t.relatedConnection(name, options,
 * ...connectionTypes(page, edge))`): their descriptions, and `totalCount` described.
 */
export function connectionTypes(page: string, edge: string) {
  return [
    {
      description: page,
      fields: (t: any) => ({
        totalCount: t.int({
          nullable: false,
          description: "Rows in the whole list (within the key's scope), not the page length",
          // What plugin-prisma's own totalCount carries: it plans the count from this field.
          extensions: { pothosPrismaTotalCount: true },
          resolve: (connection: { totalCount: number }) => connection.totalCount,
        }),
      }),
    },
    { description: edge },
  ] as const;
}
