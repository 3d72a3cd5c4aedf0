import { builder } from "../builder.ts";
import { restRoute } from "../common/interfaces.ts";
import { findWritable } from "../common/tenancy.ts";
import { badInput } from "../common/errors.ts";
import { LocationRef } from "./types.ts";
import { locationScope, mergeLocationTypeDetails, type LocationTypeField } from "./rules.ts";

const LocationPatchInput = builder.inputType("LocationPatchInput", {
  description: "Only locationTypeDetails is read; other fields are ignored.",
  fields: (t) => ({
    locationTypeDetails: t.field({ type: "JSON", description: "Custom field values of the location's type; null removes one" }),
  }),
});

builder.mutationField("updateLocation", (t) =>
  t.prismaField({
    ...restRoute({ interfaces: ["buyer"], method: "PATCH", path: "/location/locations/:id", type: "Location", bodyArg: "input" }),
    type: LocationRef,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: LocationPatchInput, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      if (input.locationTypeDetails === undefined) throw badInput("locationTypeDetails is required");
      const location = await findWritable<{ locationTypeDetails: unknown; locationType: { fields: unknown } | null }>(
        ctx.db.location, id, locationScope(ctx.viewer), { include: { locationType: true } },
      );
      const details = mergeLocationTypeDetails(
        (location.locationTypeDetails ?? {}) as Record<string, unknown>,
        input.locationTypeDetails,
        (location.locationType?.fields as LocationTypeField[] | undefined) ?? null,
      );
      return ctx.db.location.update({ ...query, where: { id }, data: { locationTypeDetails: details as object } });
    },
  }),
);
