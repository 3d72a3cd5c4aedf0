// Search, part 1 of 3: WRITES the search vectors. (Part 2, ../jobs.ts, indexes them as bitmaps; part 3,
// bitmaps.ts and ../rules/list.ts, answers searches; docs/work-order-search.md.)
//
// A work order's tsvector is kept on its row and refreshed in the same transaction as every write that
// changes searchable text (creation, root-thread notes, service call notes), so a new note is
// searchable at once. Words are indexed with the English configuration (stems) and reference numbers
// with the simple one (exact tokens), so a query can match both. For prefix matching, the words whose
// lowercased form is not one of the English lexemes (escalation, indexed as the stem escal) are added
// as well, marked '#escalation' and without positions: only the typed-word prefix query looks for them
// (text-query.ts wholeWordQuery). What the vector holds is one SQL function, work_order_search_vector
// (sql/vector.sql); this gathers its text.
import type { Tx } from "../../../db.ts";

export async function refreshSearchVector(tx: Tx, workOrderId: number): Promise<void> {
  await tx.$executeRaw`
    UPDATE "WorkOrder" w
       SET "searchVector" = work_order_search_vector(w.id, w.title, w."poNumber", a."serialNumber", w.description, l.name, p.name, t.notes, t.calls)
      FROM "Location" l, "ProblemType" p, "WorkOrder" w2 LEFT JOIN "Asset" a ON a.id = w2."assetId",
           LATERAL (SELECT
             coalesce((SELECT string_agg(n.text, ' ') FROM "WorkOrderNote" n WHERE n."workOrderId" = w2.id AND n.thread = 'root'), '') AS notes,
             coalesce((SELECT string_agg(concat_ws(' ', s."checkInNote", s."checkOutNote"), ' ') FROM "ServiceCall" s WHERE s."workOrderId" = w2.id), '') AS calls
           ) t
     WHERE w.id = ${workOrderId} AND w2.id = w.id AND l.id = w."locationId" AND p.id = w."problemTypeId"`;
}
