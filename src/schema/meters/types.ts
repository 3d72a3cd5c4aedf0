import { builder } from "../builder.ts";
import { pageType } from "../common/list.ts";

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
