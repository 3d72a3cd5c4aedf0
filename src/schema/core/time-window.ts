// Time-window filters of a list: `<name>Start` / `<name>End` (inclusive), or `<name>=<from>,<to>` with
// either end empty (the work order list's form, docs/work-order-search.md). splitWindows takes them
// out of the filter argument and returns them as a Prisma `where`; the rest goes to filterWhere. The
// work order list, which filters in SQL, reads each window's bounds with windowOf.
import { badInput } from "./errors.ts";

function timestamp(name: string, raw: unknown): Date | undefined {
  const text = String(raw ?? "").trim();
  if (!text) return undefined;
  const date = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(date.getTime())) {
    throw badInput(`filter ${name} expects ISO 8601 timestamps, got ${JSON.stringify(raw)}`);
  }
  return date;
}

/** The filter keys a window of this name takes. */
export const windowKeys = (names: readonly string[]) => names.flatMap((n) => [n, `${n}Start`, `${n}End`]);

/** A list's window filters as the OpenAPI documents show them: `<name>=from,to`, `<name>Start`, `<name>End`. */
export const windowFilters = (names: readonly string[]) =>
  Object.fromEntries(
    names.flatMap((n) => [
      [n, "string"],
      [`${n}Start`, "datetime"],
      [`${n}End`, "datetime"],
    ]),
  ) as Record<string, "string" | "datetime">;

/** The inclusive bounds of one window, from `<name>=from,to` and/or `<name>Start` / `<name>End`. */
export function windowOf(filter: Record<string, unknown>, name: string): { from?: Date; to?: Date } {
  let from = timestamp(`${name}Start`, filter[`${name}Start`]);
  let to = timestamp(`${name}End`, filter[`${name}End`]);
  const pair = filter[name];
  if (pair !== undefined) {
    const parts = Array.isArray(pair) ? pair : String(pair).split(",");
    if (parts.length > 2) throw badInput(`filter ${name} expects <from>,<to> (either may be empty)`);
    from = timestamp(name, parts[0]) ?? from;
    to = timestamp(name, parts[1]) ?? to;
  }
  return { from, to };
}

export function splitWindows(
  filter: unknown,
  names: readonly string[],
): { rest: unknown; where: Record<string, unknown>[] } {
  if (filter === undefined || filter === null || typeof filter !== "object" || Array.isArray(filter))
    return { rest: filter, where: [] };
  const raw = filter as Record<string, unknown>;
  const where: Record<string, unknown>[] = [];
  for (const name of names) {
    const { from, to } = windowOf(raw, name);
    if (from || to) where.push({ [name]: { ...(from ? { gte: from } : {}), ...(to ? { lte: to } : {}) } });
  }
  const keys = windowKeys(names);
  return { rest: Object.fromEntries(Object.entries(raw).filter(([k]) => !keys.includes(k))), where };
}
