// On-hand quantities. Every change is an atomic conditional statement on the (stock location, part)
// row, run in the caller's transaction: the row lock serialises concurrent changes (no lost update) and
// the condition refuses a change that would take on-hand below zero, so the caller's transaction rolls
// back with nothing written. Rows are touched in one order (stock location, then part), so two
// transactions changing the same rows cannot deadlock.
import { Prisma, type Tx } from "../../../db.ts";
import { badInput } from "../../core/errors.ts";
import { quantityText, type Decimal } from "../../core/values.ts";

export interface StockChange {
  stockLocationId: number;
  partId: number;
  /** Positive adds (a receipt, parts returned from a work order); negative takes away. */
  delta: Decimal;
}

/** Largest on-hand the column holds (Decimal(18, 4)); a change past it is refused like one below zero. */
const ON_HAND_LIMIT = "100000000000000";

const key = (c: { stockLocationId: number; partId: number }) => `${c.stockLocationId}:${c.partId}`;

/** Changes on one row summed, in the lock order. */
function netChanges(changes: StockChange[]): StockChange[] {
  const byRow = new Map<string, StockChange>();
  for (const change of changes) {
    const seen = byRow.get(key(change));
    byRow.set(key(change), seen ? { ...seen, delta: seen.delta.plus(change.delta) } : { ...change });
  }
  return [...byRow.values()]
    .filter((c) => !c.delta.isZero())
    .sort((a, b) => a.stockLocationId - b.stockLocationId || a.partId - b.partId);
}

/**
 * Applies the changes, or refuses them all (400) when one would take a part's on-hand at a stock
 * location below zero. The ids must already be checked to be the team's.
 */
export async function changeStock(tx: Tx, changes: StockChange[], at: Date): Promise<void> {
  for (const change of netChanges(changes)) {
    const delta = change.delta.toString();
    const applied = change.delta.isPositive()
      ? await tx.$queryRaw<unknown[]>`
          INSERT INTO "StockLevel" ("stockLocationId", "partId", "onHand", "updatedAt")
          VALUES (${change.stockLocationId}, ${change.partId}, ${delta}::numeric, ${at})
          ON CONFLICT ("stockLocationId", "partId") DO UPDATE
            SET "onHand" = "StockLevel"."onHand" + EXCLUDED."onHand", "updatedAt" = EXCLUDED."updatedAt"
            WHERE "StockLevel"."onHand" + EXCLUDED."onHand" < ${ON_HAND_LIMIT}::numeric
          RETURNING 1`
      : await tx.$queryRaw<unknown[]>`
          UPDATE "StockLevel" SET "onHand" = "onHand" + ${delta}::numeric, "updatedAt" = ${at}
           WHERE "stockLocationId" = ${change.stockLocationId} AND "partId" = ${change.partId}
             AND "onHand" + ${delta}::numeric >= 0
          RETURNING 1`;
    if (applied.length === 0) throw await refusal(tx, change);
  }
}

async function refusal(tx: Tx, change: StockChange) {
  const level = await tx.stockLevel.findUnique({
    where: { stockLocationId_partId: { stockLocationId: change.stockLocationId, partId: change.partId } },
  });
  const onHand = quantityText(level?.onHand ?? new Prisma.Decimal(0));
  const where = `part ${change.partId} at stock location ${change.stockLocationId}`;
  return change.delta.isPositive()
    ? badInput(`on-hand of ${where} would exceed the largest quantity held (${onHand} on hand)`)
    : badInput(
        `on-hand of ${where} would go below zero: ${onHand} on hand, ${quantityText(change.delta.negated())} requested`,
      );
}

/** A stock count: sets the on-hand of each part at the stock location (absolute, not a change). */
export async function setStockCount(
  tx: Tx,
  stockLocationId: number,
  counts: { partId: number; quantity: Decimal }[],
  at: Date,
): Promise<void> {
  for (const count of [...counts].sort((a, b) => a.partId - b.partId)) {
    await tx.$executeRaw`
      INSERT INTO "StockLevel" ("stockLocationId", "partId", "onHand", "updatedAt")
      VALUES (${stockLocationId}, ${count.partId}, ${count.quantity.toString()}::numeric, ${at})
      ON CONFLICT ("stockLocationId", "partId") DO UPDATE SET "onHand" = EXCLUDED."onHand", "updatedAt" = EXCLUDED."updatedAt"`;
  }
}
