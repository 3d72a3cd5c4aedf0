// Money and quantities: decimal strings on the wire ("12.50"), exact decimals in code (Prisma.Decimal is
// decimal.js) and numeric columns in the database; never floats.
import { Prisma } from "../../db.ts";
import { badInput } from "./errors.ts";

export type Decimal = Prisma.Decimal;

const DECIMAL = /^-?\d+(\.\d+)?$/;

export interface DecimalRule {
  /** Most digits after the point (money: 2). */
  scale: number;
  /** Most digits before the point (the column's precision minus its scale). */
  integerDigits: number;
  /** Negative values allowed (a return of parts); otherwise below zero is a 400. */
  negative?: boolean;
}

/** A decimal string as the contract sends it, or a 400 naming the field. JSON numbers are refused: they are floats. */
export function decimalOf(value: unknown, field: string, rule: DecimalRule): Decimal {
  if (typeof value !== "string" || !DECIMAL.test(value.trim())) {
    throw badInput(`${field} must be a decimal string such as "12.50", got ${JSON.stringify(value)}`);
  }
  const text = value.trim();
  const [whole, fraction = ""] = text.replace(/^-/, "").split(".");
  if (fraction.length > rule.scale)
    throw badInput(`${field} allows at most ${rule.scale} digits after the decimal point`);
  if (whole.replace(/^0+(?=\d)/, "").length > rule.integerDigits)
    throw badInput(`${field} allows at most ${rule.integerDigits} digits before the decimal point`);
  const decimal = new Prisma.Decimal(text);
  if (!rule.negative && decimal.isNegative() && !decimal.isZero()) throw badInput(`${field} must not be negative`);
  return decimal;
}
