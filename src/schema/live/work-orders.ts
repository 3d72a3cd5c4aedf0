// The work order of a typed event, loaded as the subscriber selected it and within its key's scope.
// One event reaches many subscribers at once: the loads of one event-loop turn that share a selection
// and a scope are one query (masking is applied per subscriber when the fields resolve).
import DataLoader from "dataloader";
import type { Db, Prisma } from "../../db.ts";
import type { Viewer } from "../core/viewer.ts";
import { workOrderScope } from "../work-orders/public.ts";

interface Load {
  id: number;
  /** Pothos's query for the subscriber's selection (select/include). */
  query: object;
  viewer: Viewer;
}

/** Scopes are the same for every key of a buyer company, and for every key of a supplier facility. */
const scopeKey = (viewer: Viewer) =>
  viewer.kind === "buyer" ? `b${viewer.buyerCompanyId}` : `s${viewer.supplierFacilityId}`;

export type WorkOrderLoader = DataLoader<Load, unknown>;

export function createWorkOrderLoader(db: Db): WorkOrderLoader {
  return new DataLoader<Load, unknown>(
    async (loads) => {
      const groups = new Map<string, Load[]>();
      for (const load of loads) {
        const key = `${scopeKey(load.viewer)} ${JSON.stringify(load.query)}`;
        groups.set(key, [...(groups.get(key) ?? []), load]);
      }
      const found = new Map<Load, unknown>();
      await Promise.all(
        [...groups.values()].map(async (group) => {
          const [{ query, viewer }] = group;
          const ids = [...new Set(group.map((l) => l.id))];
          const where: Prisma.WorkOrderWhereInput = { AND: [{ id: { in: ids } }, workOrderScope(viewer)] };
          const rows = (await db.workOrder.findMany({ ...query, where })) as { id: number }[];
          const byId = new Map(rows.map((r) => [r.id, r]));
          for (const load of group) found.set(load, byId.get(load.id) ?? null);
        }),
      );
      return loads.map((load) => found.get(load) ?? null);
    },
    { cache: false, maxBatchSize: 1000, batchScheduleFn: (run) => setImmediate(run) },
  );
}
