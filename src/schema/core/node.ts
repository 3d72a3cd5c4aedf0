// Relay nodes of the dashboard graph (docs/dashboards.md): how a type with an integer id becomes a Node
// that node(id:)/nodes(ids:) refetch, always through the domain's own read scope, so a global id of
// another tenant's row answers null exactly as a foreign id answers on the root field.
import type { Viewer } from "./viewer.ts";
import type { Context } from "./context.ts";

/**
 * The `prismaNode` options of a type read through `scope`: its global id is its integer id, and a
 * refetch finds the row only inside the key's scope (not found and out of scope are both null).
 */
export function scopedNode<Where>(scope: (viewer: Viewer) => Where) {
  return {
    id: { field: "id" as const },
    nullable: true,
    findUnique: (id: string, ctx: Context) => {
      // A global id decodes to text; anything but a whole number matches no row instead of failing.
      const where = { id: /^\d{1,9}$/.test(id) ? Number(id) : -1 };
      const inScope = scope(ctx.viewer) as Record<string, unknown>;
      // Prisma batches the findUnique calls of one tick (nodes(ids:)) into one statement only when their
      // where holds plain column conditions, so a scope without its own id condition is spread in
      // (a buyer's `{buyerCompanyId}`: one statement for all ids); any other stays ANDed.
      return "id" in inScope ? { ...where, AND: [inScope] } : { ...inScope, ...where };
    },
  };
}
