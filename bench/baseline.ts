// The yardstick: a bare node:http server with a pg.Pool of 10 connections that answers each list with
// the same rows the service returns and their total, in the REST envelope: the location list's first
// page (`/locations`), and a work order list with filters (`/work-orders`: the same filters, sort and
// nested status history, service calls and subscribers, in one statement). The page and the total are
// sent in parallel. No routing, auth, rate limit, GraphQL or Prisma: whatever the service costs beyond
// this is theirs.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createCountingPool, type StatementCounter } from "./counting-pool.ts";

const LOCATION_COLUMNS = `id, "buyerCompanyId", "regionId", "locationTypeId", name, currency, "internalCode",
  "storeContacts", "locationTypeDetails", "createdAt"`;

/** The work order list the bench loads: two statuses and two locations, newest first. */
export interface WorkOrderFilter {
  statuses: string[];
  locationIds: number[];
}

const WORK_ORDER_WHERE = `w."buyerCompanyId" = $1 AND w.status::text = ANY($2::text[]) AND w."locationId" = ANY($3::int[])`;

export const BASELINE_SQL = {
  locations: {
    page: `SELECT ${LOCATION_COLUMNS} FROM "Location" WHERE "buyerCompanyId" = $1 ORDER BY id LIMIT 10 OFFSET 0`,
    count: `SELECT count(*)::int AS count FROM "Location" WHERE "buyerCompanyId" = $1`,
  },
  workOrders: {
    page: `SELECT w.*,
        (SELECT coalesce(json_agg(s ORDER BY s.at, s.id), '[]') FROM "WorkOrderStatusChange" s WHERE s."workOrderId" = w.id) AS "statusChanges",
        (SELECT coalesce(json_agg(c ORDER BY c.id), '[]') FROM "ServiceCall" c WHERE c."workOrderId" = w.id) AS "serviceCalls",
        (SELECT coalesce(array_agg(b.email ORDER BY b.email), '{}') FROM "WorkOrderSubscriber" b WHERE b."workOrderId" = w.id) AS subscribers
      FROM "WorkOrder" w WHERE ${WORK_ORDER_WHERE} ORDER BY w."createdAt" DESC, w.id DESC LIMIT 10`,
    count: `SELECT count(*)::int AS count FROM "WorkOrder" w WHERE ${WORK_ORDER_WHERE}`,
  },
};

export interface Baseline {
  url: string;
  counter: StatementCounter;
  close(): Promise<void>;
}

export async function startBaseline(
  databaseUrl: string,
  buyerCompanyId: number,
  workOrders: WorkOrderFilter,
): Promise<Baseline> {
  const { pool, counter } = createCountingPool(databaseUrl, 10);
  const lists: Record<string, { type: string; sql: { page: string; count: string }; params: unknown[] }> = {
    "/locations": { type: "Location", sql: BASELINE_SQL.locations, params: [buyerCompanyId] },
    "/work-orders": {
      type: "WorkOrder",
      sql: BASELINE_SQL.workOrders,
      params: [buyerCompanyId, workOrders.statuses, workOrders.locationIds],
    },
  };
  const server = http.createServer(async (req, res) => {
    const list = lists[req.url ?? ""];
    try {
      if (!list) throw new Error(`no list ${req.url}`);
      const [page, total] = await Promise.all([
        pool.query(list.sql.page, list.params),
        pool.query(list.sql.count, list.params),
      ]);
      const body = JSON.stringify({ type: list.type, data: page.rows, count: total.rows[0].count, status: "ok" });
      res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      res.end(body);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    }
  });
  server.keepAliveTimeout = 5_000; // as the service's server
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counter,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}
