import { builder } from "../core/builder.ts";

export interface ExchangeRate {
  baseCurrency: string;
  targetCurrency: string;
  rate: string;
  effectiveAt: Date;
}

export const CurrencyExchangeRateRef = builder.objectRef<ExchangeRate>("CurrencyExchangeRate").implement({
  description: "How many units of targetCurrency one unit of baseCurrency buys, from effectiveAt",
  fields: (t) => ({
    baseCurrency: t.exposeString("baseCurrency", {
      description: "Three-letter code of the currency converted from (e.g. USD)",
    }),
    targetCurrency: t.exposeString("targetCurrency", {
      description: "Three-letter code of the currency converted to (e.g. CAD)",
    }),
    rate: t.exposeString("rate", { description: 'Decimal string, at least 4 decimals (e.g. "1.3650")' }),
    effectiveAt: t.expose("effectiveAt", {
      type: "DateTime",
      description: "When this rate took effect; the latest rate is the one with the newest effectiveAt",
    }),
  }),
});
