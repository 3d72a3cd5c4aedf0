// The values every feature reads and writes the same way. Money and quantities: decimal strings on the
// wire ("12.50"), exact decimals in code (Prisma.Decimal is decimal.js) and numeric columns in the
// database; never floats. Text: trimmed, with a length limit.
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

/** Money: up to 10 digits and 2 decimals ("12.50"), as the contract formats amounts. */
export const MONEY: DecimalRule = { scale: 2, integerDigits: 10 };

/** Money as the contract writes it, exactly two decimals ("12.50", "0.00"); null stays null. */
export function moneyText(value: Decimal): string;
export function moneyText(value: Decimal | null): string | null;
export function moneyText(value: Decimal | null): string | null {
  return value === null ? null : value.toFixed(MONEY.scale);
}

/** Quantities: up to 10 digits and 4 decimals ("2.5000"). Negative only where a return is recorded. */
export const QUANTITY: DecimalRule = { scale: 4, integerDigits: 10 };
export const RETURNABLE_QUANTITY: DecimalRule = { ...QUANTITY, negative: true };

export const quantityText = (value: Decimal) => value.toFixed(QUANTITY.scale);

/** A quantity that must not be zero (a zero line records nothing). */
export function quantityOf(value: unknown, field: string, rule: DecimalRule = QUANTITY): Decimal {
  const quantity = decimalOf(value, field, rule);
  if (quantity.isZero()) throw badInput(`${field} must not be zero`);
  return quantity;
}

/** Limits of a name and of free text (descriptions, notes, reasons). */
export const NAME_MAX = 200;
export const TEXT_MAX = 2000;

/** Trimmed text of at most `max` characters; blank is refused where the field is required, else null. */
export function textOf(value: string, field: string, max: number, required = false): string | null {
  const text = value.trim();
  if (text.length > max) throw badInput(`${field} allows at most ${max} characters`);
  if (!text) {
    if (required) throw badInput(`${field} must not be blank`);
    return null;
  }
  return text;
}
