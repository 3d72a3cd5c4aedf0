// Meters and meter readings: lists, count_by and single reads (buyer interface); the meter type
// catalog (buyer, and supplier keys, which read meters on the assets they see).
import { readRoutes } from "../core/read-routes.ts";
import { MeterPage, MeterReadingPage, MeterReadingRef, MeterRef, MeterTypePage, MeterTypeRef } from "./types.ts";
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
