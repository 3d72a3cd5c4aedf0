import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { meterScope, meterTypeScope, readingScope } from "./rules.ts";
import { pageType } from "../core/list.ts";
import { lastBaselineValue, READING_MODES } from "./rules.ts";
import { closedSet } from "../core/interfaces.ts";
import { describedValues } from "../core/enums.ts";
import { connectionLimits, connectionTypes } from "../core/connection.ts";
import { relationQuery } from "../core/relations.ts";

export const MeterRef = builder.prismaNode("Meter", {
  ...scopedNode(meterScope),
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The meter's id" }),
    name: t.exposeString("name", { description: "Display name of the meter" }),
    assetId: t.exposeInt("assetId", { description: "Id of the asset the meter is on" }),
    meterTypeId: t.exposeInt("meterTypeId", { description: "Id of the meter's type in the company's catalog" }),
    readingMode: t.exposeString("readingMode", {
      extensions: closedSet(READING_MODES),
      description: "How readings are read: direct_reading, change_from_baseline or compare_to_target",
    }),
    valueType: t.exposeString("valueType", {
      description: "What a reading holds (e.g. number), copied from the meter type",
    }),
    valueUnit: t.exposeString("valueUnit", {
      nullable: true,
      description: "Unit of the readings (e.g. h, F), copied from the meter type; null when unitless",
    }),
    locationId: t.exposeInt("locationId", { description: "Id of the location of the meter's asset" }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", { description: "Id of the buyer company that owns the meter" }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the meter was created" }),
    asset: t.relation("asset", { subGraphs: ["graphql"], description: "The asset the meter is on" }),
    meterType: t.relation("meterType", { subGraphs: ["graphql"], description: "The meter's type" }),
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
  description: "A meter on an asset (hours run, temperature, …) whose readings are recorded over time",
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
    id: t.exposeInt("id", { description: "The meter type's id (the meterTypeId of a meter)" }),
    name: t.exposeString("name", { description: "Display name of the meter type" }),
    valueType: t.exposeString("valueType", {
      description: "What a reading holds (e.g. number); copied to each meter of the type",
    }),
    valueUnit: t.exposeString("valueUnit", {
      nullable: true,
      description: "Unit of the readings (e.g. h, F); copied to each meter of the type",
    }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", {
      description: "Id of the buyer company whose catalog holds the meter type",
    }),
  }),
  description: "A kind of meter in a buyer company's catalog: what its readings hold and in which unit",
});

export const MeterTypePage = pageType("MeterType", MeterTypeRef);

export const MeterReadingRef = builder.prismaNode("MeterReading", {
  ...scopedNode(readingScope),
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The reading's id" }),
    meterId: t.exposeInt("meterId", { description: "Id of the meter read" }),
    // Decimal text as stored, without trailing zeros ("12.5").
    value: t.string({
      resolve: (reading) => reading.value.toString(),
      description: 'The value read, as decimal text without trailing zeros (e.g. "12.5")',
    }),
    expectedValue: t.exposeString("expectedValue", {
      nullable: true,
      description: "The value expected at this reading (e.g. a target); null when not given",
    }),
    recordedAt: t.expose("recordedAt", { type: "DateTime", description: "When the reading was taken" }),
    recordedBy: t.exposeString("recordedBy", {
      nullable: true,
      description: "Contact identifier of who recorded the reading; null when not given",
    }),
    isBaseline: t.exposeBoolean("isBaseline", {
      description: "Whether this reading is a baseline that later change_from_baseline readings compare with",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the reading was stored" }),
    lastBaselineValue: t.string({
      nullable: true,
      description:
        "change_from_baseline meters: the value of the latest other baseline reading recorded at or before this one",
      resolve: (reading, _args, ctx) => lastBaselineValue(ctx, reading.id),
    }),
    meter: t.relation("meter", { subGraphs: ["graphql"], description: "The meter read" }),
  }),
  description: "One recorded value of a meter",
});

export const MeterReadingPage = pageType("MeterReading", MeterReadingRef);

export const ReadingMode = builder.enumType("ReadingMode", {
  description: "How a meter's readings are read",
  values: describedValues(READING_MODES, {
    direct_reading: "Each reading is the meter's value itself (the default)",
    change_from_baseline: "Readings are compared with the latest earlier baseline reading (lastBaselineValue)",
    compare_to_target: "Readings are compared with a target, recorded as each reading's expectedValue",
  }),
});

// valueType, valueUnit and locationId are derived, so they are not declared (the body's are ignored).
export const MeterInput = builder.inputType("MeterInput", {
  description: "Body of a meter create; value type, unit and location are derived from the meter type and the asset",
  fields: (t) => ({
    name: t.string({ required: true, description: "Display name of the meter; required" }),
    assetId: t.int({ required: true, description: "An asset of the key's company; required" }),
    meterTypeId: t.int({ required: true, description: "A meter type of the company's catalog; required" }),
    readingMode: t.field({ type: ReadingMode, description: "Default direct_reading" }),
  }),
});

export const MeterReadingInput = builder.inputType("MeterReadingInput", {
  description: "Body of a meter reading create",
  fields: (t) => ({
    meterId: t.int({ required: true, description: "A meter of the key's company; required" }),
    value: t.string({ required: true, description: 'Numeric text, e.g. "12.5"' }),
    expectedValue: t.string({ description: "The value expected at this reading (e.g. a target)" }),
    recordedAt: t.field({
      type: "DateTime",
      required: true,
      description: "When the reading was taken (ISO 8601 with offset); required",
    }),
    recordedBy: t.string({ description: "Contact identifier of the recorder" }),
    isBaseline: t.boolean({ description: "Default false" }),
  }),
});
