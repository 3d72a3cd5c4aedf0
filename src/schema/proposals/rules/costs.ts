// The cost sections of proposals and invoices and how they roll up, with exact decimal arithmetic
// (docs/commerce.md "Money"). Each section (labor, material, travel, freight, misc, incurred cost) has
// line items [{description, amount}], a tax rate (percent) and a before-tax total:
//
//   section total     = the sum of its line items (a section without lines may carry a lump-sum total)
//   before-tax total  = the sum of the section totals
//   tax               = round half up to cents of (Σ section total × section rate + before-tax total × rate) / 100,
//                       plus the invoice's tax lines
//   after-tax total   = before-tax total + tax
//
// A total that is sent must equal the computed one; an unsent total is computed (so it is 0 exactly when
// nothing is under it). Rates and line items not sent keep their stored value on an update (0 and [] on
// a create). The checks return the mismatches; the caller decides the status (400 proposals, 406 invoices).
import { Prisma } from "../../../db.ts";
import { badInput } from "../../core/errors.ts";
import { decimalOf, MONEY, moneyText, type Decimal } from "../../core/values.ts";

export const COST_SECTIONS = ["labor", "material", "travel", "freight", "misc", "incurredCost"] as const;

/** The names of a document's four totals. */
export interface TotalNames {
  beforeTax: string;
  taxRate: string;
  tax: string;
  afterTax: string;
}

export interface LineItem {
  description: string;
  amount: string;
}

const MAX_LINE_ITEMS = 200;
const MAX_DESCRIPTION = 1000;

const ZERO = new Prisma.Decimal(0);
/** Money on a document: cents, up to 12 digits before the point (the columns are numeric(14,2)). */
export const documentMoney = (value: unknown, field: string) =>
  decimalOf(value, field, { ...MONEY, integerDigits: 12 });
const lineAmount = (value: unknown, field: string) => decimalOf(value, field, MONEY);

/** A tax rate in percent: 0 to 100, up to four decimals ("8.875"). */
export function rate(value: unknown, field: string): Decimal {
  const r = decimalOf(value, field, { scale: 4, integerDigits: 3 });
  if (r.greaterThan(100)) throw badInput(`${field} is a percentage and must not exceed 100`);
  return r;
}

/** Rates without trailing zeros ("8.875", "0"). */
export const rateText = (value: Decimal) => value.toFixed();

function lineItems(value: unknown, field: string): LineItem[] {
  if (!Array.isArray(value)) throw badInput(`${field} must be an array of {description, amount}`);
  if (value.length > MAX_LINE_ITEMS) throw badInput(`${field} has more than ${MAX_LINE_ITEMS} line items`);
  return value.map((item, i) => {
    const at = `${field}[${i}]`;
    if (!item || typeof item !== "object" || Array.isArray(item))
      throw badInput(`${at} must be an object {description, amount}`);
    const { description, amount } = item as Record<string, unknown>;
    if (typeof description !== "string" || !description.trim())
      throw badInput(`${at}.description must be a non-empty string`);
    if (description.length > MAX_DESCRIPTION)
      throw badInput(`${at}.description is longer than ${MAX_DESCRIPTION} characters`);
    return { description: description.trim(), amount: moneyText(lineAmount(amount, `${at}.amount`)) };
  });
}

const sum = (values: Decimal[]) => values.reduce((a, b) => a.plus(b), ZERO);

export interface RolledUp {
  /** Every section and total column, ready for Prisma. */
  data: Record<string, unknown>;
  /** The computed totals, for further checks (tax lines). */
  beforeTax: Decimal;
  tax: Decimal;
  /** Human-readable mismatches between sent and computed totals; empty when everything adds up. */
  mismatches: string[];
}

/**
 * Reads the cost fields of a body (absent = undefined, null = the default) over the stored document
 * (null on create) and rolls them up. Shape errors (not decimal strings, negative, too precise, bad
 * line items) throw a 400 here; mismatched totals are returned.
 */
export function rollUpCosts(
  input: Record<string, unknown>,
  stored: Record<string, unknown> | null,
  names: TotalNames,
  extraTax: Decimal = ZERO,
): RolledUp {
  const data: Record<string, unknown> = {};
  const mismatches: string[] = [];
  const sent = (field: string) => input[field] !== undefined && input[field] !== null;
  const kept = <T>(field: string, fallback: T): T =>
    input[field] === undefined && stored ? (stored[field] as T) : fallback;

  let rateTax = ZERO;
  const sectionTotals: Decimal[] = [];
  for (const section of COST_SECTIONS) {
    const [linesField, rateField, totalField] = [
      `${section}LineItems`,
      `${section}TaxRate`,
      `${section}TotalBeforeTax`,
    ];
    const lines = sent(linesField) ? lineItems(input[linesField], linesField) : kept<LineItem[]>(linesField, []);
    const sectionRate = sent(rateField) ? rate(input[rateField], rateField) : new Prisma.Decimal(kept(rateField, ZERO));
    const lineSum = sum(lines.map((l) => new Prisma.Decimal(l.amount)));
    let total: Decimal;
    if (sent(totalField)) {
      total = documentMoney(input[totalField], totalField);
      if (lines.length && !total.equals(lineSum)) {
        mismatches.push(`${totalField} is ${moneyText(total)} but its line items add up to ${moneyText(lineSum)}`);
      }
    } else {
      // No lines sent or stored: a lump sum kept from before (an update that leaves the section alone), else 0.
      total = lines.length || input[linesField] !== undefined ? lineSum : new Prisma.Decimal(kept(totalField, ZERO));
    }
    data[linesField] = lines;
    data[rateField] = sectionRate;
    data[totalField] = total;
    sectionTotals.push(total);
    rateTax = rateTax.plus(total.times(sectionRate));
  }

  const documentRate = sent(names.taxRate)
    ? rate(input[names.taxRate], names.taxRate)
    : new Prisma.Decimal(kept(names.taxRate, ZERO));
  const taxOn = (base: Decimal) => {
    const fromRates = rateTax.plus(base.times(documentRate)).dividedBy(100);
    return fromRates.toDecimalPlaces(2, Prisma.Decimal.ROUND_HALF_UP);
  };
  const sectionSum = sum(sectionTotals);
  // The before-tax total is a lump sum when nothing under it was given (no section sent or stored): then
  // it is the one sent, else the one kept from before, else derived from a sent after-tax total, so the
  // totals a client did not send never contradict the ones it did (a proposal of only totalAfterTax).
  const sectionsGiven =
    !sectionSum.isZero() ||
    COST_SECTIONS.some((section) => input[`${section}LineItems`] != null || sent(`${section}TotalBeforeTax`));
  let beforeTax: Decimal;
  if (sectionsGiven || (!sent(names.beforeTax) && !sent(names.afterTax) && !stored)) beforeTax = sectionSum;
  else if (sent(names.beforeTax)) beforeTax = documentMoney(input[names.beforeTax], names.beforeTax);
  else if (sent(names.afterTax)) {
    const afterTax = documentMoney(input[names.afterTax], names.afterTax);
    beforeTax = beforeTaxFor(afterTax, sent(names.tax) ? documentMoney(input[names.tax], names.tax) : undefined);
  } else beforeTax = new Prisma.Decimal(kept(names.beforeTax, ZERO));
  const rateTaxRounded = taxOn(beforeTax);
  const tax = rateTaxRounded.plus(extraTax);
  const afterTax = beforeTax.plus(tax);

  /** The before-tax total whose tax brings it to `afterTax` (the sent tax, else the rates'), or 0 when none does. */
  function beforeTaxFor(afterTaxSent: Decimal, taxSent: Decimal | undefined): Decimal {
    if (taxSent) return Prisma.Decimal.max(ZERO, afterTaxSent.minus(taxSent));
    // before + round(before × rate) + extra = after: the division's cent, or the one either side of it.
    const guess = afterTaxSent
      .minus(extraTax)
      .dividedBy(documentRate.dividedBy(100).plus(1))
      .toDecimalPlaces(2, Prisma.Decimal.ROUND_HALF_UP);
    const candidates = [guess, guess.minus("0.01"), guess.plus("0.01")].filter((c) => !c.isNegative());
    return candidates.find((c) => c.plus(taxOn(c)).plus(extraTax).equals(afterTaxSent)) ?? guess;
  }

  const check = (field: string, computed: Decimal, why: string) => {
    if (!sent(field)) return;
    const given = documentMoney(input[field], field);
    if (!given.equals(computed)) mismatches.push(`${field} is ${moneyText(given)} but ${why}`);
  };
  if (sectionsGiven) check(names.beforeTax, beforeTax, `the section totals add up to ${moneyText(beforeTax)}`);
  check(
    names.tax,
    tax,
    extraTax.isZero()
      ? `the tax rates give ${moneyText(tax)}`
      : `the tax rates give ${moneyText(rateTaxRounded)} and the tax lines ${moneyText(extraTax)}: ${moneyText(tax)}`,
  );
  check(
    names.afterTax,
    afterTax,
    `${names.beforeTax} ${moneyText(beforeTax)} + ${names.tax} ${moneyText(tax)} = ${moneyText(afterTax)}`,
  );

  Object.assign(data, {
    [names.beforeTax]: beforeTax,
    [names.taxRate]: documentRate,
    [names.tax]: tax,
    [names.afterTax]: afterTax,
  });
  return { data, beforeTax, tax, mismatches };
}

/** One message for every mismatch. */
export const mismatchMessage = (mismatches: string[]) => `the totals do not add up: ${mismatches.join("; ")}`;
