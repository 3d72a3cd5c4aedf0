// Full-text search of work orders: a tsvector kept on the row, refreshed in the same transaction as
// every write that changes searchable text (creation, root-thread notes, service call notes).
// Words are indexed with the English configuration (stems) and reference numbers with the simple one
// (exact tokens), so a query can match both.
import type { Tx } from "../../../db.ts";

export async function refreshSearchVector(tx: Tx, workOrderId: number): Promise<void> {
  await tx.$executeRaw`
    UPDATE "WorkOrder" w SET "searchVector" =
        setweight(to_tsvector('english', w.title), 'A')
     || setweight(to_tsvector('simple', concat_ws(' ', w.id::text, w."poNumber", a."serialNumber")), 'A')
     || setweight(to_tsvector('english', concat_ws(' ', w.description, l.name, p.name)), 'B')
     || setweight(to_tsvector('english', coalesce((
          SELECT string_agg(n.text, ' ') FROM "WorkOrderNote" n WHERE n."workOrderId" = w.id AND n.thread = 'root'), '')), 'C')
     || setweight(to_tsvector('english', coalesce((
          SELECT string_agg(concat_ws(' ', s."checkInNote", s."checkOutNote"), ' ') FROM "ServiceCall" s WHERE s."workOrderId" = w.id), '')), 'C')
      FROM "Location" l, "ProblemType" p, "WorkOrder" w2 LEFT JOIN "Asset" a ON a.id = w2."assetId"
     WHERE w.id = ${workOrderId} AND w2.id = w.id AND l.id = w."locationId" AND p.id = w."problemTypeId"`;
}
