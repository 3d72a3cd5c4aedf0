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

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A Decimal read as PostgreSQL's text of a numeric (core/json-rows.ts): a Prisma.Decimal in every respect
 * (instanceof, methods, results), parsed only when something computes with it. `toFixed` at the text's
 * own scale (money from a numeric(14,2) column, written with two decimals) and `toFixed()` (rates without
 * trailing zeros) answer from the text. A wide list row carries about twenty decimals, and parsing each
 * was about a tenth of the list's CPU (docs/performance.md, "Lists at scale").
 */
class DecimalText {
  readonly #text: string;
  #value?: Decimal;
  constructor(text: string) {
    this.#text = text;
  }
  /** The parsed value, whose digits, exponent and sign decimal.js reads (and would write) as this object's. */
  #parsed(): Decimal {
    this.#value ??= new Prisma.Decimal(this.#text);
    return this.#value;
  }
  get d() {
    return this.#parsed().d;
  }
  set d(digits: number[]) {
    (this.#parsed() as { d: unknown }).d = digits;
  }
  get e() {
    return this.#parsed().e;
  }
  set e(exponent: number) {
    (this.#parsed() as { e: unknown }).e = exponent;
  }
  get s() {
    return this.#parsed().s;
  }
  set s(sign: number) {
    (this.#parsed() as { s: unknown }).s = sign;
  }
  toFixed(dp?: number, rm?: number): string {
    const text = this.#text;
    if (rm === undefined && PLAIN_DECIMAL.test(text)) {
      const point = text.indexOf(".");
      if (dp === (point < 0 ? 0 : text.length - point - 1)) return text;
      if (dp === undefined) return point < 0 ? text : text.replace(/\.?0+$/, "");
    }
    return (Prisma.Decimal.prototype.toFixed as (dp?: number, rm?: number) => string).call(this, dp, rm);
  }
}
// A Decimal by its prototype; its results are plain Decimals (decimal.js builds them with x.constructor).
Object.setPrototypeOf(DecimalText.prototype, Prisma.Decimal.prototype);
Object.defineProperty(DecimalText.prototype, "constructor", { value: Prisma.Decimal });

/** A numeric's text as PostgreSQL writes it, as a Decimal (see DecimalText). */
export const decimalFromText = (text: string): Decimal => new DecimalText(text) as unknown as Decimal;

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
