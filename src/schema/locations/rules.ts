// Locations and regions: who sees what, and what may be written.
import type { Viewer } from "../core/viewer.ts";
import type { Context } from "../core/context.ts";
import { buyerOwnedScope, findWritable } from "../core/tenancy.ts";
import { badInput } from "../core/errors.ts";
import type { ListSpec } from "../core/list.ts";

/** Locations and regions belong to a buyer company; suppliers see those of related buyers. */
export const locationScope = (viewer: Viewer) => buyerOwnedScope(viewer);
export const regionScope = (viewer: Viewer) => buyerOwnedScope(viewer);

export const LOCATION_LIST: ListSpec = {
  filters: {
    id: "int",
    regionId: "int",
    locationTypeId: "int",
    buyerCompanyId: "int",
    name: "string",
    currency: "string",
  },
  sortable: ["id", "name", "regionId", "createdAt"],
  defaultSort: { field: "id", order: "asc" },
  maxLimit: 10,
};

export const REGION_LIST: ListSpec = {
  filters: { id: "int", buyerCompanyId: "int", name: "string" },
  sortable: ["id", "name"],
  defaultSort: { field: "id", order: "asc" },
};

type LocationFieldKind = "string" | "number" | "boolean";
interface LocationTypeField {
  key: string;
  type: LocationFieldKind;
}

/**
 * A PATCH of locationTypeDetails: every key must be a field of the location's type with a value of
 * its kind; null removes the value. Returns the merged details.
 */
function mergeLocationTypeDetails(
  current: Record<string, unknown>,
  patch: unknown,
  fields: LocationTypeField[] | null,
): Record<string, unknown> {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
    throw badInput("locationTypeDetails must be an object of custom field values");
  }
  if (!fields) throw badInput("this location has no location type, so it has no custom fields");
  const byKey = new Map(fields.map((f) => [f.key, f.type]));
  const merged = { ...current };
  const problems: string[] = [];
  for (const [key, value] of Object.entries(patch)) {
    const kind = byKey.get(key);
    if (!kind) problems.push(`${key} is not a field of this location type`);
    else if (value === null) delete merged[key];
    else if (typeof value !== kind || (kind === "number" && !Number.isFinite(value)))
      problems.push(`${key} must be a ${kind}`);
    else merged[key] = value;
  }
  if (problems.length) throw badInput(`invalid locationTypeDetails: ${problems.join("; ")}`);
  return merged;
}

/** PATCH of a location the key may write: only locationTypeDetails is read (merged, checked against its type). */
export async function patchLocationTypeDetails(ctx: Context, id: number, patch: unknown, query: object) {
  if (patch === undefined) throw badInput("locationTypeDetails is required");
  const location = await findWritable<{ locationTypeDetails: unknown; locationType: { fields: unknown } | null }>(
    ctx.db.location,
    "location",
    id,
    locationScope(ctx.viewer),
    { include: { locationType: true } },
  );
  const details = mergeLocationTypeDetails(
    (location.locationTypeDetails ?? {}) as Record<string, unknown>,
    patch,
    (location.locationType?.fields as LocationTypeField[] | undefined) ?? null,
  );
  return ctx.db.location.update({ ...query, where: { id }, data: { locationTypeDetails: details as object } });
}
