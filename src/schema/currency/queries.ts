import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { CurrencyExchangeRateRef } from "./types.ts";
import { latestRate } from "./rules.ts";

builder.queryField("currencyExchangeLatest", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer"],
      method: "GET",
      type: "CurrencyExchangeRate",
      path: "/currency_exchange/latest/:targetCurrencyId/:baseCurrencyId",
    }),
    description: "The most recent stored rate (by effectiveAt) from base to target; 404 when none is stored.",
    type: CurrencyExchangeRateRef,
    args: {
      targetCurrencyId: t.arg.string({
        required: true,
        description: "Three-letter code of the currency to convert to (e.g. CAD)",
      }),
      baseCurrencyId: t.arg.string({
        required: true,
        description: "Three-letter code of the currency to convert from (e.g. USD)",
      }),
    },
    resolve: (_root, args, ctx) => latestRate(ctx.db, args.targetCurrencyId, args.baseCurrencyId),
  }),
);
