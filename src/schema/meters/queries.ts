// Meters and meter readings: lists, count_by and single reads (buyer interface); the meter type
// catalog (buyer, and supplier keys, which read meters on the assets they see).
import { readRoutes } from "../core/read-routes.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
import {
  MeterPage,
  MeterReadingPage,
  MeterReadingRef,
  MeterRef,
  MeterTypePage,
  MeterTypeRef,
  ReadingMode,
} from "./types.ts";
import {
  METER_LIST,
  METER_TYPE_LIST,
  READING_LIST,
  checkMeterFilter,
  meterScope,
  meterTypeScope,
  readingScope,
} from "./rules.ts";

readRoutes({
  interfaces: ["buyer", "supplier"],
  path: "/asset/meter_types",
  type: "MeterType",
  fields: { list: "meterTypes", countBy: "meterTypesCountBy", one: "meterType" },
  description:
    "The meter type catalog (value type and unit): the meterTypeId of POST /asset/meters. Supplier keys see the related buyers' catalogs.",
  page: MeterTypePage,
  item: MeterTypeRef,
  table: (ctx) => ctx.db.meterType,
  scope: meterTypeScope,
  spec: METER_TYPE_LIST,
});

readRoutes({
  interfaces: ["buyer"],
  path: "/asset/meters",
  type: "Meter",
  fields: { list: "meters", countBy: "metersCountBy", one: "meter" },
  description: "The meters on assets the key may see, with their reading mode.",
  page: MeterPage,
  item: MeterRef,
  table: (ctx) => ctx.db.meter,
  scope: meterScope,
  spec: METER_LIST,
  checkFilter: checkMeterFilter,
});

readRoutes({
  interfaces: ["buyer"],
  path: "/asset/meter_readings",
  type: "MeterReading",
  fields: { list: "meterReadings", countBy: "meterReadingsCountBy", one: "meterReading" },
  description: "All readings of the company's meters unless filtered (e.g. meterId=1,2).",
  page: MeterReadingPage,
  item: MeterReadingRef,
  table: (ctx) => ctx.db.meterReading,
  scope: readingScope,
  spec: READING_LIST,
});

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
listConnection("meterTypesConnection", {
  type: MeterTypeRef,
  typeName: "MeterType",
  description: "The meter type catalog the key may read.",
  interfaces: ["buyer", "supplier"],
  table: (ctx) => ctx.db.meterType,
  scope: (ctx) => meterTypeScope(ctx.viewer),
  filter: defineFilter("MeterTypeFilter", "MeterType", "Meter types", {
    ids: match.ids("id", "Meter type ids"),
    search: match.text(["name", "valueType", "valueUnit"], "Text in the name, value type or unit (any case)"),
  }),
  order: defineOrder("MeterType", "MeterType", { id: "Meter type id", name: "Name" }, [
    { field: "id", direction: "asc" },
  ]),
});

listConnection("metersConnection", {
  type: MeterRef,
  typeName: "Meter",
  description: "The meters on assets the key may see.",
  interfaces: ["buyer"],
  table: (ctx) => ctx.db.meter,
  scope: (ctx) => meterScope(ctx.viewer),
  filter: defineFilter("MeterFilter", "Meter", "Meters", {
    ids: match.ids("id", "Meter ids"),
    assetIds: match.ids("assetId", "Asset ids"),
    meterTypeIds: match.ids("meterTypeId", "Meter type ids"),
    locationIds: match.ids("locationId", "Location ids"),
    readingModes: match.oneOf("readingMode", ReadingMode, "Reading modes"),
    createdAt: match.range("createdAt", "Created in this range"),
    search: match.text(["name"], "Text in the name (any case)"),
  }),
  order: defineOrder("Meter", "Meter", { id: "Meter id", name: "Name", createdAt: "Creation time" }, [
    { field: "id", direction: "asc" },
  ]),
});

listConnection("meterReadingsConnection", {
  type: MeterReadingRef,
  typeName: "MeterReading",
  description: "Readings of the company's meters.",
  interfaces: ["buyer"],
  table: (ctx) => ctx.db.meterReading,
  scope: (ctx) => readingScope(ctx.viewer),
  filter: defineFilter("MeterReadingFilter", "MeterReading", "Meter readings", {
    ids: match.ids("id", "Reading ids"),
    meterIds: match.ids("meterId", "Meter ids"),
    isBaseline: match.flag("isBaseline", "Baseline readings (true) or the others (false)"),
    recordedAt: match.range("recordedAt", "Recorded in this range"),
  }),
  order: defineOrder(
    "MeterReading",
    "MeterReading",
    { id: "Reading id", recordedAt: "When it was recorded", value: "Reading value", createdAt: "Creation time" },
    [{ field: "id", direction: "asc" }],
  ),
});
