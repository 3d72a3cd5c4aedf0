// Creating meters and meter readings (buyer interface). Neither is upserted: the contract names only
// asset types, assets, proposals and invoices for upsert by id, so an `id` in the body is ignored.
import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires } from "../core/permissions.ts";
import { MeterInput, MeterReadingInput, MeterReadingRef, MeterRef } from "./types.ts";
import { createMeter, createMeterReading } from "./rules.ts";

builder.mutationField("createMeter", (t) =>
  t.prismaField({
    ...restRoute(
      { interfaces: ["buyer"], method: "POST", path: "/asset/meters", type: "Meter", bodyArg: "input" },
      requires("asset.write"),
    ),
    description:
      "Creates a meter on an asset, of a meter type of the company's catalog; the value type is copied from the meter type.",
    type: MeterRef,
    args: { input: t.arg({ type: MeterInput, required: true, description: "The meter to create" }) },
    resolve: (query, _root, { input }, ctx) => createMeter(ctx, input, query),
  }),
);

builder.mutationField("createMeterReading", (t) =>
  t.prismaField({
    ...restRoute(
      { interfaces: ["buyer"], method: "POST", path: "/asset/meter_readings", type: "MeterReading", bodyArg: "input" },
      requires("asset.write"),
    ),
    description: "Records a reading of a meter, interpreted by the meter's reading mode.",
    type: MeterReadingRef,
    args: { input: t.arg({ type: MeterReadingInput, required: true, description: "The reading to record" }) },
    resolve: (query, _root, { input }, ctx) => createMeterReading(ctx, input, query),
  }),
);
