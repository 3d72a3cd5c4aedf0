// What a key's contact may do, from the contact's roles: one table. Every mutation declares what it needs
// (`requires(...)` in its field extensions, next to its REST route), and applyPermissions enforces it for
// every schema served (GraphQL and each REST cut), so REST and GraphQL answer a denial the same way.
import { defaultFieldResolver, type GraphQLSchema } from "graphql";
import type { Context } from "./context.ts";
import { badInput, forbidden, notWritable } from "./errors.ts";
import type { Viewer } from "./viewer.ts";

export type Permission =
  | "asset.write"
  | "location.write"
  | "workOrder.write"
  | "user.provision"
  | "network.write"
  | "inventory.write"
  | "purchasing.write"
  | "purchasing.approve"
  | "billing.write"
  | "billing.approve";

const PERMISSIONS: Record<Permission, { roles: readonly string[]; what: string }> = {
  "asset.write": {
    roles: ["admin", "super_admin", "facility_manager", "asset_manager", "dispatcher", "technician"],
    what: "write assets",
  },
  "location.write": { roles: ["admin", "super_admin", "facility_manager", "asset_manager"], what: "write locations" },
  "workOrder.write": {
    roles: ["admin", "super_admin", "facility_manager", "dispatcher", "technician", "requester"],
    what: "write work orders",
  },
  "user.provision": { roles: ["admin", "super_admin", "facility_manager"], what: "provision users" },
  "network.write": {
    roles: ["admin", "super_admin", "facility_manager", "dispatcher"],
    what: "manage the private network",
  },
  // Internal teams (/v1/partners, docs/purchasing.md): catalogs and stock; purchasing; approving requests.
  "inventory.write": {
    roles: ["admin", "super_admin", "facility_manager", "inventory_manager", "purchaser", "dispatcher", "technician"],
    what: "write inventory",
  },
  "purchasing.write": {
    roles: ["admin", "super_admin", "facility_manager", "inventory_manager", "purchaser", "dispatcher"],
    what: "write purchasing records",
  },
  "purchasing.approve": {
    roles: ["admin", "super_admin", "facility_manager", "purchasing_manager"],
    what: "approve purchase requests",
  },
  "billing.write": {
    roles: ["admin", "super_admin", "facility_manager", "dispatcher", "billing"],
    what: "write proposals, invoices and files",
  },
  "billing.approve": {
    roles: ["admin", "super_admin", "facility_manager", "accounts_payable"],
    what: "decide on proposals and invoices",
  },
};

function can(viewer: Viewer, permission: Permission): boolean {
  return viewer.roles.some((role) => PERMISSIONS[permission].roles.includes(role));
}

/** Proposals and invoices are not available to internal service team keys (the contract): 403 on every path. */
export function refuseInternalTeams(viewer: Viewer, what: string): void {
  if (viewer.kind === "supplier" && !viewer.isThirdParty)
    throw forbidden(`${what} are not available to internal service team keys`);
}

/** The answer to a key without the permission a write needs. */
function denied(permission: Permission) {
  const { roles, what } = PERMISSIONS[permission];
  return badInput(`this key may not ${what}: that needs one of the roles ${roles.join(", ")}`);
}

export interface PermissionRule {
  /** "anyKey": every authenticated key may make this write (declared, not forgotten). */
  permission: Permission | "anyKey";
  /**
   * A write to an existing record (PATCH, label writes, actions): the contract answers a denial exactly
   * like an unknown or foreign record, so the denial names the record as its lookup would.
   */
  record?: { noun: string; id: (args: any) => unknown };
}

/** Field extensions declaring what a mutation needs; spread into `restRoute(…)`'s second argument or `extensions`. */
export const requires = (permission: PermissionRule["permission"], record?: PermissionRule["record"]) => ({
  permission: { permission, ...(record ? { record } : {}) } satisfies PermissionRule,
});

/** Wraps every mutation of `schema` with its declared check; a mutation that declares none fails the build. */
export function applyPermissions(schema: GraphQLSchema): void {
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const rule = field.extensions?.permission as PermissionRule | undefined;
    if (!rule) throw new Error(`Mutation.${field.name} declares no permission (requires(...) in its extensions)`);
    if ((field as { permissionChecked?: true }).permissionChecked || rule.permission === "anyKey") continue;
    const permission = rule.permission;
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = (parent, args, ctx: Context, info) => {
      if (!can(ctx.viewer, permission))
        throw rule.record ? notWritable(rule.record.noun, rule.record.id(args)) : denied(permission);
      return resolve(parent, args, ctx, info);
    };
    Object.assign(field, { permissionChecked: true });
  }
}
