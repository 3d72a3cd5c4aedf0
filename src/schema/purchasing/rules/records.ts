// What the purchasing rules share: the line items' common reading (part or free text, quantity).
import type { Context } from "../../core/context.ts";
import { badInput } from "../../core/errors.ts";
import { quantityOf, textOf, TEXT_MAX } from "../../core/values.ts";
import { refuseUnknown, teamParts } from "../../inventory/public.ts";

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
