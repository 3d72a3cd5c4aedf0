// Full-text search of work orders: a tsvector kept on the row, refreshed in the same transaction as
// every write that changes searchable text (creation, root-thread notes, service call notes).
// Words are indexed with the English configuration (stems) and reference numbers with the simple one
// (exact tokens), so a query can match both.
//
// The vector also carries the work order's buyer company as one lexeme (`tenantLexeme`), so that a
// buyer's search is a single GIN condition and its exact count can skip the heap (list.ts
// `workOrderStatements`, docs/work-order-search.md "How the SQL is built").
import type { Prisma } from "../../generated/prisma/client.ts";

/**
 * The buyer company's lexeme, e.g. `Buyer 7`. No text can produce it: every dictionary lowercases
 * what it emits and the parser never keeps a space inside a token, so a title reading "Buyer 7" is
 * indexed as `buyer` and `7`, never as this lexeme, and search text (which goes through to_tsquery)
 * cannot ask for it either. It has no position, so phrase matching is unaffected. The SQL below
 * spells the same form ('Buyer ' || id): change both together (and migrate the stored vectors).
 */
export const tenantLexeme = (buyerCompanyId: number) => `Buyer ${buyerCompanyId}`;

export async function refreshSearchVector(tx: Prisma.TransactionClient, workOrderId: number): Promise<void> {
  await tx.$executeRaw`
    UPDATE "WorkOrder" w SET "searchVector" =
        setweight(to_tsvector('english', w.title), 'A')
     || setweight(to_tsvector('simple', concat_ws(' ', w.id::text, w."poNumber", a."serialNumber")), 'A')
     || setweight(to_tsvector('english', concat_ws(' ', w.description, l.name, p.name)), 'B')
     || setweight(to_tsvector('english', coalesce((
          SELECT string_agg(n.text, ' ') FROM "WorkOrderNote" n WHERE n."workOrderId" = w.id AND n.thread = 'root'), '')), 'C')
     || setweight(to_tsvector('english', coalesce((
          SELECT string_agg(concat_ws(' ', s."checkInNote", s."checkOutNote"), ' ') FROM "ServiceCall" s WHERE s."workOrderId" = w.id), '')), 'C')
     -- The tenant lexeme (see tenantLexeme), last and without position.
     || array_to_tsvector(ARRAY['Buyer ' || w."buyerCompanyId"])
      FROM "Location" l, "ProblemType" p, "WorkOrder" w2 LEFT JOIN "Asset" a ON a.id = w2."assetId"
     WHERE w.id = ${workOrderId} AND w2.id = w.id AND l.id = w."locationId" AND p.id = w."problemTypeId"`;
}
