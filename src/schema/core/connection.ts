// Page sizes of the dashboard graph's cursor connections (docs/dashboards.md), in one place for every
// connection: to-many relations (`t.relatedConnection`) and root `*Connection` fields alike spread
// `connectionLimits` into their options. Asking for more than the maximum is a 400 naming the limit,
// never a silently shorter page.
import { badInput } from "./errors.ts";

/** Rows a connection page holds when neither `first` nor `last` is given. */
export const DEFAULT_PAGE_SIZE = 10;
/** The most rows one connection page may ask for (the same as a REST page, core/list.ts MAX_LIMIT). */
export const MAX_PAGE_SIZE = 25;

/**
 * `first` / `last` of a connection field: a 400 when either asks for more than MAX_PAGE_SIZE rows.
 * For connection fields that check their arguments themselves (connectionLimits uses it).
 * @public
 */
export function checkPageSize(args: { first?: number | null; last?: number | null }): number {
  for (const name of ["first", "last"] as const) {
    const size = args[name];
    if (size != null && size > MAX_PAGE_SIZE)
      throw badInput(`${name} must be at most ${MAX_PAGE_SIZE}, got ${size}; page on with the cursors`, name);
  }
  return MAX_PAGE_SIZE;
}

/** The size options of every connection field: the default page, and the maximum checked by checkPageSize. */
export const connectionLimits = {
  defaultSize: DEFAULT_PAGE_SIZE,
  maxSize: (args: { first?: number | null; last?: number | null }) => checkPageSize(args),
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
