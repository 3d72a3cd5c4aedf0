import { builder } from "../builder.ts";
import { pageType } from "../common/list.ts";
import { lastBaselineValue } from "./rules.ts";

export const MeterRef = builder.prismaObject("Meter", {
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    assetId: t.exposeInt("assetId"),
    meterTypeId: t.exposeInt("meterTypeId"),
    readingMode: t.exposeString("readingMode"),
    valueType: t.exposeString("valueType"),
    valueUnit: t.exposeString("valueUnit", { nullable: true }),
    locationId: t.exposeInt("locationId"),
    buyerCompanyId: t.exposeInt("buyerCompanyId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    asset: t.relation("asset", { subGraphs: ["graphql"] }),
  }),
});

export const MeterPage = pageType("Meter", MeterRef);

export const MeterReadingRef = builder.prismaObject("MeterReading", {
  fields: (t) => ({
    id: t.exposeInt("id"),
    meterId: t.exposeInt("meterId"),
    // Decimal text as stored, without trailing zeros ("12.5").
    value: t.string({ resolve: (reading) => reading.value.toString() }),
    expectedValue: t.exposeString("expectedValue", { nullable: true }),
    recordedAt: t.expose("recordedAt", { type: "DateTime" }),
    recordedBy: t.exposeString("recordedBy", { nullable: true }),
    isBaseline: t.exposeBoolean("isBaseline"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    lastBaselineValue: t.string({
      nullable: true,
      description: "change_from_baseline meters: the value of the latest other baseline reading recorded at or before this one",
      resolve: (reading, _args, ctx) => lastBaselineValue(ctx, reading.id),
    }),
    meter: t.relation("meter", { subGraphs: ["graphql"] }),
  }),
});

export const MeterReadingPage = pageType("MeterReading", MeterReadingRef);
