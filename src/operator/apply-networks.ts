// Applies the fixture's `buyerSupplierRelationships` (apply.ts hands over its ref bookkeeping): each
// relationship with its details, live again (deletedAt cleared), and its rankings replaced by the file's.
import type { Tx } from "../db.ts";
import type { Fixture } from "./fixture.ts";

export interface NetworkRefs {
  id(kind: "supplierFacility" | "location" | "problemType", ref: string, where: string): number;
  sameCompany(ref: string, company: number, where: string): void;
}

type Upsert = (
  ref: string,
  write: { create: () => Promise<{ id: number }>; update: (id: number) => Promise<unknown> },
) => Promise<number>;

const lower = (emails: string[]) => [...new Set(emails.map((e) => e.toLowerCase()))];

export async function applyBuyerSupplierRelationships(
  tx: Tx,
  items: Fixture["buyerSupplierRelationships"],
  refs: NetworkRefs,
  companyOf: (ref: string, where: string) => number,
  upsert: Upsert,
): Promise<void> {
  for (const [i, r] of items.entries()) {
    const where = `buyerSupplierRelationships[${i}]`;
    const buyerCompanyId = companyOf(r.buyer, `${where}.buyer`);
    const data = {
      buyerCompanyId,
      supplierFacilityId: refs.id("supplierFacility", r.supplierFacility, `${where}.supplierFacility`),
      deletedAt: null,
      isPreferred: r.isPreferred,
      trades: r.trades,
      workOrdersRoutedTo: lower(r.workOrdersRoutedTo),
      supplierAccountEmails: lower(r.supplierAccountEmails),
    };
    const id = await upsert(r.ref, {
      create: () => tx.buyerSupplierRelationship.create({ data }),
      update: (id) => tx.buyerSupplierRelationship.update({ where: { id }, data }),
    });
    await tx.supplierRanking.deleteMany({ where: { relationshipId: id } });
    await tx.supplierRanking.createMany({
      data: r.rankings.map((k, j) => {
        refs.sameCompany(k.location, buyerCompanyId, `${where}.rankings[${j}].location`);
        refs.sameCompany(k.problemType, buyerCompanyId, `${where}.rankings[${j}].problemType`);
        return {
          relationshipId: id,
          rank: k.rank,
          locationId: refs.id("location", k.location, `${where}.rankings[${j}].location`),
          problemTypeId: refs.id("problemType", k.problemType, `${where}.rankings[${j}].problemType`),
        };
      }),
    });
  }
}
