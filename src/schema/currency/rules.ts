// Currency exchange rates: loaded by the operator (fixture `currencyRates`), read by buyers.
import type { Db } from "../../db.ts";
import { badInput, notFound } from "../core/errors.ts";
import type { ExchangeRate } from "./types.ts";

/** A three-letter currency code from a path, uppercased ("usd" → "USD"); anything else is a 400. */
function currencyCode(param: string, raw: string): string {
  if (!/^[A-Za-z]{3}$/.test(raw))
    throw badInput(`${param} must be a three-letter currency code, got ${JSON.stringify(raw)}`);
  return raw.toUpperCase();
}

/**
 * A stored rate as the contract's decimal string. Rates are stored with 8 decimals; the answer keeps
 * every significant digit but drops trailing zeros beyond the 4th decimal, so the operator's "1.3650"
 * comes back as "1.3650" (not "1.36500000" or "1.365") and 1.23456789 keeps all 8 decimals.
 */
function formatRate(rate: { toFixed(digits: number): string }): string {
  return rate.toFixed(8).replace(/(\.\d{4}\d*?)0+$/, "$1");
}

/** The latest stored rate from base to target. Rates are global reference data, not tenant data: no scope. */
export async function latestRate(db: Db, targetParam: string, baseParam: string): Promise<ExchangeRate> {
  const target = currencyCode("targetCurrencyId", targetParam);
  const base = currencyCode("baseCurrencyId", baseParam);
  const row = await db.currencyRate.findFirst({ where: { base, target }, orderBy: { at: "desc" } });
  if (!row) throw notFound(`no exchange rate from ${base} to ${target}`);
  return { baseCurrency: base, targetCurrency: target, rate: formatRate(row.rate), effectiveAt: row.at };
}
