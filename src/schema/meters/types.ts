import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { meterScope, meterTypeScope, readingScope } from "./rules.ts";
import { pageType } from "../core/list.ts";
import { lastBaselineValue, READING_MODES } from "./rules.ts";
import { closedSet } from "../core/interfaces.ts";
import { connectionLimits, connectionTypes } from "../core/connection.ts";
import { relationQuery } from "../core/relations.ts";

export const MeterRef = builder.prismaNode("Meter", {
  ...scopedNode(meterScope),
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    assetId: t.exposeInt("assetId"),
    meterTypeId: t.exposeInt("meterTypeId"),
    readingMode: t.exposeString("readingMode", { extensions: closedSet(READING_MODES) }),
    valueType: t.exposeString("valueType"),
    valueUnit: t.exposeString("valueUnit", { nullable: true }),
    locationId: t.exposeInt("locationId"),
    buyerCompanyId: t.exposeInt("buyerCompanyId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    asset: t.relation("asset", { subGraphs: ["graphql"] }),
    meterType: t.relation("meterType", { subGraphs: ["graphql"] }),
    readings: t.relatedConnection(
      "readings",
      {
        ...connectionLimits,
        cursor: "id",
        subGraphs: ["graphql"],
        description: "The meter's readings, oldest first by recordedAt (readings(last: n) for the latest)",
        totalCount: true,
        query: relationQuery(readingScope, [{ recordedAt: "asc" as const }, { id: "asc" as const }]),
      },
      ...connectionTypes("A page of a meter's readings", "A reading and its cursor"),
    ),
  }),
});

// The dashboard graph (GraphQL only): an asset's meters, within the key's meter scope.
builder.prismaObjectField("Asset", "meters", (t) =>
  t.relatedConnection(
    "meters",
    {
      ...connectionLimits,
      cursor: "id",
      subGraphs: ["graphql"],
      description: "The asset's meters, by id",
      totalCount: true,
      query: relationQuery(meterScope, { id: "asc" as const }),
    },
    ...connectionTypes("A page of an asset's meters", "A meter and its cursor"),
  ),
);

export const MeterPage = pageType("Meter", MeterRef);

/** The company's meter type catalog: where an integrator finds the meterTypeId that POST /asset/meters needs. */
export const MeterTypeRef = builder.prismaNode("MeterType", {
  ...scopedNode(meterTypeScope),
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    valueType: t.exposeString("valueType", {
      description: "What a reading holds (e.g. number); copied to each meter of the type",
    }),
    valueUnit: t.exposeString("valueUnit", {
      nullable: true,
      description: "Unit of the readings (e.g. h, F); copied to each meter of the type",
    }),
    buyerCompanyId: t.exposeInt("buyerCompanyId"),
  }),
});

export const MeterTypePage = pageType("MeterType", MeterTypeRef);

export const MeterReadingRef = builder.prismaNode("MeterReading", {
  ...scopedNode(readingScope),
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
      description:
        "change_from_baseline meters: the value of the latest other baseline reading recorded at or before this one",
      resolve: (reading, _args, ctx) => lastBaselineValue(ctx, reading.id),
    }),
    meter: t.relation("meter", { subGraphs: ["graphql"] }),
  }),
});

export const MeterReadingPage = pageType("MeterReading", MeterReadingRef);

export const ReadingMode = builder.enumType("ReadingMode", { values: READING_MODES });

// valueType, valueUnit and locationId are derived, so they are not declared (the body's are ignored).
export const MeterInput = builder.inputType("MeterInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    assetId: t.int({ required: true }),
    meterTypeId: t.int({ required: true }),
    readingMode: t.field({ type: ReadingMode, description: "Default direct_reading" }),
  }),
});

export const MeterReadingInput = builder.inputType("MeterReadingInput", {
  fields: (t) => ({
    meterId: t.int({ required: true }),
    value: t.string({ required: true, description: 'Numeric text, e.g. "12.5"' }),
    expectedValue: t.string(),
    recordedAt: t.field({ type: "DateTime", required: true }),
    recordedBy: t.string({ description: "Contact identifier of the recorder" }),
    isBaseline: t.boolean({ description: "Default false" }),
  }),
});
