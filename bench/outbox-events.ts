// Status updates written straight into the outbox, as writeEvent writes and announces them, for the benches that
// measure what happens after the commit (webhooks, live subscriptions). Plain SQL in one statement: in
// production these rows come from API transactions on other machines, so the producer should cost
// this machine as little as it can.
import { sqlPool, type Db } from "../src/db.ts";
import { announceOutbox } from "../src/schema/work-orders/events.ts";

export interface StatusUpdate {
  workOrderId: number;
  buyerCompanyId: number;
  customer: string;
  location: string;
  supplierFacilityId: number | null;
  changedBy: string;
}

/** One `workorder.status_update` (a confirm) per update, all in one INSERT. */
export async function insertStatusUpdates(db: Db, updates: StatusUpdate[]): Promise<void> {
  const changedAt = new Date().toISOString();
  const payloads = updates.map((u) =>
    JSON.stringify({
      workOrderId: u.workOrderId,
      buyerCompanyId: u.buyerCompanyId,
      customer: u.customer,
      location: u.location,
      supplierFacilityId: u.supplierFacilityId,
      visibleToSupplierFacilityIds: [],
      status: "ConfirmedByServiceProvider",
      oldStatus: "PendingConfirmationByServiceProvider",
      newStatus: "ConfirmedByServiceProvider",
      changedBy: u.changedBy,
      changedAt,
      action: "confirm",
    }),
  );
  await sqlPool(db).query(
    `INSERT INTO "OutboxEvent" ("eventType", "workOrderId", "buyerCompanyId", payload)
     SELECT 'workorder.status_update', w, (p->>'buyerCompanyId')::int, p FROM unnest($1::int[], $2::jsonb[]) AS e(w, p)`,
    [updates.map((u) => u.workOrderId), payloads],
  );
  announceOutbox(db);
}
