// Tax lines of an invoice, validated against the invoice currency: only CAD invoices carry them, with
// the Canadian sales taxes GST, HST and PST, each at most once, and HST (which harmonises GST and PST)
// never together with either. A line is {type, amount, rate?}; with a rate (percent) its amount must be
// the before-tax total at that rate, rounded half up to cents. The shape is a 400; breaking these rules
// is a save-level failure (406).
import { Prisma } from "../../../db.ts";
import { badInput } from "../../core/errors.ts";
import { moneyText, type Decimal } from "../../core/values.ts";
import { documentMoney, rate, rateText } from "../../proposals/public.ts";

const TAX_TYPES: Record<string, readonly string[]> = { CAD: ["GST", "HST", "PST"] };
const MAX_TAX_LINES = 10;

export interface TaxLine {
  type: string;
  amount: string;
  rate: string | null;
}

/** The body's taxLineItems (shape only: 400 on anything that is not {type, amount, rate?}). */
export function taxLines(value: unknown): TaxLine[] {
  if (!Array.isArray(value)) throw badInput("taxLineItems must be an array of {type, amount, rate?}");
  if (value.length > MAX_TAX_LINES) throw badInput(`taxLineItems has more than ${MAX_TAX_LINES} lines`);
  return value.map((item, i) => {
    const at = `taxLineItems[${i}]`;
    if (!item || typeof item !== "object" || Array.isArray(item))
      throw badInput(`${at} must be an object {type, amount, rate?}`);
    const line = item as Record<string, unknown>;
    if (typeof line.type !== "string" || !line.type.trim())
      throw badInput(`${at}.type must be a tax type such as "GST"`);
    return {
      type: line.type.trim().toUpperCase(),
      amount: moneyText(documentMoney(line.amount, `${at}.amount`)),
      rate: line.rate === undefined || line.rate === null ? null : rateText(rate(line.rate, `${at}.rate`)),
    };
  });
}

export const taxLinesTotal = (lines: TaxLine[]): Decimal =>
  lines.reduce((sum, l) => sum.plus(l.amount), new Prisma.Decimal(0));

/** What is wrong with the lines for an invoice in `currency` with this before-tax total; empty when nothing. */
export function taxLineProblems(lines: TaxLine[], currency: string, beforeTax: Decimal): string[] {
  if (!lines.length) return [];
  const allowed = TAX_TYPES[currency];
  if (!allowed)
    return [`taxLineItems are accepted only on CAD invoices (GST, HST, PST); this invoice is in ${currency}`];
  const problems: string[] = [];
  const types = lines.map((l) => l.type);
  lines.forEach((line, i) => {
    if (!allowed.includes(line.type))
      problems.push(
        `taxLineItems[${i}].type ${line.type} is not a tax of ${currency} invoices (allowed: ${allowed.join(", ")})`,
      );
    if (types.indexOf(line.type) !== i) problems.push(`taxLineItems[${i}].type ${line.type} appears more than once`);
    if (line.rate !== null) {
      const expected = beforeTax.times(line.rate).dividedBy(100).toDecimalPlaces(2, Prisma.Decimal.ROUND_HALF_UP);
      if (!expected.equals(line.amount))
        problems.push(
          `taxLineItems[${i}].amount is ${line.amount} but ${line.rate}% of ${moneyText(beforeTax)} is ${moneyText(expected)}`,
        );
    }
  });
  if (types.includes("HST") && (types.includes("GST") || types.includes("PST")))
    problems.push("HST replaces GST and PST; it cannot be combined with them");
  return problems;
}
