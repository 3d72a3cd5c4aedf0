import { builder } from "../builder.ts";
import { restRoute } from "../common/interfaces.ts";
import { notFound } from "../common/errors.ts";
import { CurrencyExchangeRateRef } from "./types.ts";
import { currencyCode, formatRate } from "./rules.ts";

builder.queryField("currencyExchangeLatest", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer"], method: "GET", type: "CurrencyExchangeRate",
      path: "/currency_exchange/latest/:targetCurrencyId/:baseCurrencyId",
    }),
    description: "The most recent stored rate (by effectiveAt) from base to target; 404 when none is stored.",
    type: CurrencyExchangeRateRef,
    args: { targetCurrencyId: t.arg.string({ required: true }), baseCurrencyId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const target = currencyCode("targetCurrencyId", args.targetCurrencyId);
      const base = currencyCode("baseCurrencyId", args.baseCurrencyId);
      // Rates are global reference data, not tenant data: no company scope.
      const row = await ctx.db.currencyRate.findFirst({ where: { base, target }, orderBy: { at: "desc" } });
      if (!row) throw notFound(`no exchange rate from ${base} to ${target}`);
      return { baseCurrency: base, targetCurrency: target, rate: formatRate(row.rate), effectiveAt: row.at };
    },
  }),
);
