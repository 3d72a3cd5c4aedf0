// The yardstick: a bare node:http server with a pg.Pool of 10 connections that answers each list with
// the same rows the service returns and their total, in the REST envelope: the location list's first
// page (`/locations`), a work order list with filters (`/work-orders`: the same filters, sort and
// nested status history, service calls and subscribers, in one statement), and the first page of the
// other lists that page real rows (`/assets`, `/proposals`, `/invoices`, `/purchase-orders`, `/notes`),
// each with the related rows its REST answer needs. The page and the total (and a list's other
// statements: the notes' read mark) are sent in parallel, after the check a list needs first (the
// notes' work order in scope). No routing, auth, rate limit, GraphQL or Prisma: whatever the service
// costs beyond this is theirs.
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

/** What the other lists are read for: the purchase orders' team and the notes' work order and reader. */
export interface OtherListParams {
  teamId: number;
  notedWorkOrderId: number;
  contactId: number;
}

const WORK_ORDER_WHERE = `w."buyerCompanyId" = $1 AND w.status::text = ANY($2::text[]) AND w."locationId" = ANY($3::int[])`;
const WORK_ORDER_PARAMS = ["buyer", "statuses", "locationIds"];

/** A statement and the names of its parameters, $1 first. */
type Statement = [sql: string, ...params: string[]];

/** A list's statements: `first` alone, then `parallel` (its first is the page, its second the total). */
interface ListSql {
  first?: Statement;
  parallel: Statement[];
}

export const BASELINE_SQL = {
  locations: {
    parallel: [
      [`SELECT ${LOCATION_COLUMNS} FROM "Location" WHERE "buyerCompanyId" = $1 ORDER BY id LIMIT 10 OFFSET 0`, "buyer"],
      [`SELECT count(*)::int AS count FROM "Location" WHERE "buyerCompanyId" = $1`, "buyer"],
    ],
  },
  workOrders: {
    parallel: [
      [
        `SELECT w.*,
        (SELECT coalesce(json_agg(s ORDER BY s.at, s.id), '[]') FROM "WorkOrderStatusChange" s WHERE s."workOrderId" = w.id) AS "statusChanges",
        (SELECT coalesce(json_agg(c ORDER BY c.id), '[]') FROM "ServiceCall" c WHERE c."workOrderId" = w.id) AS "serviceCalls",
        (SELECT coalesce(array_agg(b.email ORDER BY b.email), '{}') FROM "WorkOrderSubscriber" b WHERE b."workOrderId" = w.id) AS subscribers
      FROM "WorkOrder" w WHERE ${WORK_ORDER_WHERE} ORDER BY w."createdAt" DESC, w.id DESC LIMIT 10`,
        ...WORK_ORDER_PARAMS,
      ],
      [`SELECT count(*)::int AS count FROM "WorkOrder" w WHERE ${WORK_ORDER_WHERE}`, ...WORK_ORDER_PARAMS],
    ],
  },
  // The effective refrigerant values come from the asset's type.
  assets: {
    parallel: [
      [
        `SELECT a.*, (SELECT to_json(t) FROM "AssetType" t WHERE t.id = a."assetTypeId") AS "assetType"
         FROM "Asset" a WHERE a."buyerCompanyId" = $1 ORDER BY a.id LIMIT 10 OFFSET 0`,
        "buyer",
      ],
      [`SELECT count(*)::int AS count FROM "Asset" WHERE "buyerCompanyId" = $1`, "buyer"],
    ],
  },
  proposals: {
    parallel: [
      [
        `SELECT p.*, (SELECT coalesce(json_agg(f ORDER BY a.position), '[]') FROM "ProposalAttachment" a
           JOIN "StoredFile" f ON f.id = a."fileId" WHERE a."proposalId" = p.id) AS attachments
         FROM "Proposal" p WHERE p."buyerCompanyId" = $1 ORDER BY p.id DESC LIMIT 10 OFFSET 0`,
        "buyer",
      ],
      [`SELECT count(*)::int AS count FROM "Proposal" WHERE "buyerCompanyId" = $1`, "buyer"],
    ],
  },
  // A buyer sees published invoices only; the PDF's link comes from its stored file.
  invoices: {
    parallel: [
      [
        `SELECT i.*, (SELECT to_json(f) FROM "StoredFile" f WHERE f.id = i."pdfFileId") AS "pdfFile"
         FROM "Invoice" i WHERE i."buyerCompanyId" = $1 AND i.status <> 'draft' ORDER BY i.id DESC LIMIT 10 OFFSET 0`,
        "buyer",
      ],
      [`SELECT count(*)::int AS count FROM "Invoice" WHERE "buyerCompanyId" = $1 AND status <> 'draft'`, "buyer"],
    ],
  },
  purchaseOrders: {
    parallel: [
      [
        `SELECT o.*, (SELECT coalesce(json_agg(l ORDER BY l.id), '[]') FROM (SELECT l.*,
           (SELECT coalesce(array_agg(r.id ORDER BY r.id), '{}') FROM "PurchaseRequestLineItem" r
             WHERE r."purchaseOrderLineItemId" = l.id) AS "purchaseRequestLineItemIds"
           FROM "PurchaseOrderLineItem" l WHERE l."purchaseOrderId" = o.id) l) AS "lineItems"
         FROM "PurchaseOrder" o WHERE o."supplierCompanyId" = $1 ORDER BY o.id DESC LIMIT 10 OFFSET 0`,
        "team",
      ],
      [`SELECT count(*)::int AS count FROM "PurchaseOrder" WHERE "supplierCompanyId" = $1`, "team"],
    ],
  },
  // REST marks the thread read for the key's contact as it answers.
  notes: {
    first: [`SELECT id FROM "WorkOrder" WHERE id = $1 AND "buyerCompanyId" = $2`, "workOrder", "buyer"],
    parallel: [
      [
        `SELECT * FROM "WorkOrderNote" WHERE "workOrderId" = $1 AND thread = 'root' ORDER BY "noteAddedAt", id LIMIT 10 OFFSET 0`,
        "workOrder",
      ],
      [`SELECT count(*)::int AS count FROM "WorkOrderNote" WHERE "workOrderId" = $1 AND thread = 'root'`, "workOrder"],
      [
        `INSERT INTO "WorkOrderThreadRead" ("workOrderId", "contactId", thread, "readAt") VALUES ($1, $2, 'root', now())
          ON CONFLICT ("workOrderId", "contactId", thread) DO UPDATE SET "readAt" = EXCLUDED."readAt"`,
        "workOrder",
        "contact",
      ],
    ],
  },
} satisfies Record<string, ListSql>;

export interface Baseline {
  url: string;
  counter: StatementCounter;
  close(): Promise<void>;
}

export async function startBaseline(
  databaseUrl: string,
  buyerCompanyId: number,
  workOrders: WorkOrderFilter,
  other: OtherListParams,
): Promise<Baseline> {
  const { pool, counter } = createCountingPool(databaseUrl, 10);
  const params: Record<string, unknown> = {
    buyer: buyerCompanyId,
    statuses: workOrders.statuses,
    locationIds: workOrders.locationIds,
    team: other.teamId,
    workOrder: other.notedWorkOrderId,
    contact: other.contactId,
  };
  const lists: Record<string, { type: string; sql: ListSql }> = {
    "/locations": { type: "Location", sql: BASELINE_SQL.locations },
    "/work-orders": { type: "WorkOrder", sql: BASELINE_SQL.workOrders },
    "/assets": { type: "Asset", sql: BASELINE_SQL.assets },
    "/proposals": { type: "Proposal", sql: BASELINE_SQL.proposals },
    "/invoices": { type: "Invoice", sql: BASELINE_SQL.invoices },
    "/purchase-orders": { type: "SupplierPurchaseOrder", sql: BASELINE_SQL.purchaseOrders },
    "/notes": { type: "WorkOrderNote", sql: BASELINE_SQL.notes },
  };
  const run = ([sql, ...names]: Statement) =>
    pool.query(
      sql,
      names.map((name) => params[name]),
    );
  const server = http.createServer(async (req, res) => {
    const list = lists[req.url ?? ""];
    try {
      if (!list) throw new Error(`no list ${req.url}`);
      if (list.sql.first) await run(list.sql.first);
      const [page, total] = await Promise.all(list.sql.parallel.map(run));
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
