// Meters and meter readings: lists, count_by and single reads (buyer interface).
import { readRoutes } from "../core/read-routes.ts";
import { MeterPage, MeterReadingPage, MeterReadingRef, MeterRef } from "./types.ts";
import { METER_LIST, READING_LIST, checkMeterFilter, meterScope, readingScope } from "./rules.ts";

readRoutes({
  interfaces: ["buyer"], path: "/asset/meters", type: "Meter",
  fields: { list: "meters", countBy: "metersCountBy", one: "meter" },
  page: MeterPage, item: MeterRef, table: (ctx) => ctx.db.meter, scope: meterScope, spec: METER_LIST, checkFilter: checkMeterFilter,
});

readRoutes({
  interfaces: ["buyer"], path: "/asset/meter_readings", type: "MeterReading",
  fields: { list: "meterReadings", countBy: "meterReadingsCountBy", one: "meterReading" },
  description: "All readings of the company's meters unless filtered (e.g. meterId=1,2).",
  page: MeterReadingPage, item: MeterReadingRef, table: (ctx) => ctx.db.meterReading, scope: readingScope, spec: READING_LIST,
});
