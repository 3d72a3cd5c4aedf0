// What a key's contact may do, from the contact's roles. One table, so every domain asks the same way.
import type { Viewer } from "./viewer.ts";

export type Permission = "asset.write" | "workOrder.write" | "user.provision";

/** Roles that may write; any other role (e.g. "viewer", "read_only") reads only. */
const WRITERS: Record<Permission, readonly string[]> = {
  "asset.write": ["admin", "super_admin", "facility_manager", "asset_manager", "dispatcher", "technician"],
  "workOrder.write": ["admin", "super_admin", "facility_manager", "dispatcher", "technician", "requester"],
  "user.provision": ["admin", "super_admin", "facility_manager"],
};

export const rolesFor = (permission: Permission) => WRITERS[permission];

export function can(viewer: Viewer, permission: Permission): boolean {
  return viewer.roles.some((role) => WRITERS[permission].includes(role));
}
