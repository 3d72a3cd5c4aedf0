// What the purchasing rules share: the status filter check and the line items' common reading (part or
// free text, quantity).
import type { Context } from "../../core/context.ts";
import { badInput } from "../../core/errors.ts";
import { quantityOf, textOf, TEXT_MAX } from "../../core/values.ts";
import { refuseUnknown, teamParts } from "../../inventory/public.ts";

/** A status filter must name statuses of the record kind (a database enum: otherwise the query fails). */
export function statusFilter(statuses: readonly string[]) {
  return (filter: unknown): unknown => {
    const raw = (filter as Record<string, unknown> | null | undefined)?.status;
    if (raw === undefined || raw === null) return filter;
    const values = (Array.isArray(raw) ? raw : String(raw).split(",")).map((v) => String(v).trim()).filter(Boolean);
    const bad = values.filter((v) => !statuses.includes(v));
    if (bad.length) throw badInput(`filter status expects one of ${statuses.join(", ")}, got ${bad.join(", ")}`);
    return filter;
  };
}

/** Most line items one request or order may hold. */
const MAX_LINE_ITEMS = 200;

export interface LineInput {
  partId?: number | null;
  description?: string | null;
  quantity: string;
}

/**
 * The common part of request and order lines: a part of the team or a free-text description (or both),
 * and a positive quantity. Returns the lines read, with the parts they name.
 */
export async function readLines<L extends LineInput>(ctx: Context, lines: readonly L[]) {
  if (lines.length === 0) throw badInput("lineItems must hold at least one line");
  if (lines.length > MAX_LINE_ITEMS) throw badInput(`lineItems may hold at most ${MAX_LINE_ITEMS} lines`);
  const read = lines.map((line, i) => {
    const description =
      line.description != null ? textOf(line.description, `lineItems[${i}].description`, TEXT_MAX) : null;
    if (!line.partId && !description) throw badInput(`lineItems[${i}] needs a partId or a description`);
    return {
      line,
      partId: line.partId ?? null,
      description,
      quantity: quantityOf(line.quantity, `lineItems[${i}].quantity`),
    };
  });
  const partIds = read.flatMap((l) => (l.partId === null ? [] : [l.partId]));
  const parts = await teamParts(ctx, partIds);
  refuseUnknown("lineItems[].partId", "part", partIds, parts);
  return { lines: read, parts };
}
