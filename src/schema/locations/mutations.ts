import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires } from "../core/permissions.ts";
import { LocationPatchInput, LocationRef } from "./types.ts";
import { patchLocationTypeDetails } from "./rules.ts";

builder.mutationField("updateLocation", (t) =>
  t.prismaField({
    ...restRoute(
      { interfaces: ["buyer"], method: "PATCH", path: "/location/locations/:id", type: "Location", bodyArg: "input" },
      requires("location.write", { noun: "location", id: (args) => args.id }),
    ),
    description:
      "Sets a location's custom field values (locationTypeDetails), checked against the fields of its location type; other body fields are ignored.",
    type: LocationRef,
    args: {
      id: t.arg.int({ required: true, description: "The location's id" }),
      input: t.arg({ type: LocationPatchInput, required: true, description: "The custom field values to set" }),
    },
    resolve: (query, _root, { id, input }, ctx) => patchLocationTypeDetails(ctx, id, input.locationTypeDetails, query),
  }),
);
