// Creating meters and meter readings (buyer interface). Neither is upserted: the contract names only
// asset types, assets, proposals and invoices for upsert by id, so an `id` in the body is ignored.
import { builder } from "../builder.ts";
import { restRoute } from "../common/interfaces.ts";
import { findWritable } from "../common/tenancy.ts";
import { badInput } from "../common/errors.ts";
import { MeterReadingRef, MeterRef } from "./types.ts";
import { READING_MODES, assertCanWrite, meterScope, readingValue, requireName } from "./rules.ts";

const ReadingMode = builder.enumType("ReadingMode", { values: READING_MODES });

// valueType, valueUnit and locationId are derived, so they are not declared (the body's are ignored).
const MeterInput = builder.inputType("MeterInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    assetId: t.int({ required: true }),
    meterTypeId: t.int({ required: true }),
    readingMode: t.field({ type: ReadingMode, description: "Default direct_reading" }),
  }),
});

builder.mutationField("createMeter", (t) =>
  t.prismaField({
    ...restRoute({ interfaces: ["buyer"], method: "POST", path: "/asset/meters", type: "Meter", bodyArg: "input" }),
    type: MeterRef,
    args: { input: t.arg({ type: MeterInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      assertCanWrite(ctx.viewer);
      const buyerCompanyId = ctx.viewer.buyerCompanyId!;
      const [asset, meterType] = await Promise.all([
        ctx.db.asset.findFirst({ where: { id: input.assetId, buyerCompanyId }, select: { locationId: true } }),
        ctx.db.meterType.findFirst({ where: { id: input.meterTypeId, buyerCompanyId }, select: { valueType: true, valueUnit: true } }),
      ]);
      const problems = [
        asset ? null : `assetId ${input.assetId} is not an asset of this company`,
        meterType ? null : `meterTypeId ${input.meterTypeId} is not a meter type of this company`,
      ].filter(Boolean);
      if (problems.length) throw badInput(problems.join("; "));
      return ctx.db.meter.create({
        ...query,
        data: {
          name: requireName(input.name),
          assetId: input.assetId,
          meterTypeId: input.meterTypeId,
          readingMode: input.readingMode ?? "direct_reading",
          valueType: meterType!.valueType,
          valueUnit: meterType!.valueUnit,
          locationId: asset!.locationId,
          buyerCompanyId,
        },
      });
    },
  }),
);

const MeterReadingInput = builder.inputType("MeterReadingInput", {
  fields: (t) => ({
    meterId: t.int({ required: true }),
    value: t.string({ required: true, description: 'Numeric text, e.g. "12.5"' }),
    expectedValue: t.string(),
    recordedAt: t.field({ type: "DateTime", required: true }),
    recordedBy: t.string({ description: "Contact identifier of the recorder" }),
    isBaseline: t.boolean({ description: "Default false" }),
  }),
});

builder.mutationField("createMeterReading", (t) =>
  t.prismaField({
    ...restRoute({ interfaces: ["buyer"], method: "POST", path: "/asset/meter_readings", type: "MeterReading", bodyArg: "input" }),
    type: MeterReadingRef,
    args: { input: t.arg({ type: MeterReadingInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      assertCanWrite(ctx.viewer);
      const value = readingValue(input.value);
      // Unknown and foreign meters get the same 400.
      await findWritable(ctx.db.meter, input.meterId, meterScope(ctx.viewer), { select: { id: true } });
      return ctx.db.meterReading.create({
        ...query,
        data: {
          meterId: input.meterId,
          value,
          expectedValue: input.expectedValue ?? null,
          recordedAt: input.recordedAt,
          recordedBy: input.recordedBy ?? null,
          isBaseline: input.isBaseline ?? false,
          buyerCompanyId: ctx.viewer.buyerCompanyId!,
        },
      });
    },
  }),
);
