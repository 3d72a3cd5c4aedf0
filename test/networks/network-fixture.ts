// The base fixture plus a supplier network worth ranking, for the test files of test/networks.
//
// acme's network (store-1 / hvac ranking: coolco-pdx 1, inhouse-west 2, fixit-pdx 2 (a tie), coolco-sea 3;
// store-1 / plumbing: inhouse-west 1, fixit-pdx 2; store-2 / plumbing: bulk-1 … bulk-27):
//   coolco-pdx   preferred, trades HVAC + Refrigeration, routing emails
//   inhouse-west acme's own team, trades HVAC + Plumbing
//   fixit-pdx    trades Plumbing
//   fixit-sea    in the network, ranked nowhere
//   coolco-sea   ranked 3 for store-1 / hvac
//   bulk-1..27   ranked for store-2 / plumbing (bulk-5 and bulk-6 share rank 5)
// fixit-tac is a supplier facility in nobody's network.
// globex's network: coolco-pdx, ranked for g-store / g-hvac.
import { BASE_FIXTURE } from "../support/app.ts";

export const BULK = 27;

export function networkFixture() {
  const f = structuredClone(BASE_FIXTURE);
  f.problemTypes.push({ ref: "g-hvac", company: "globex", name: "Globex HVAC" });
  f.supplierCompanies.push({ ref: "fixit", name: "FixIt Plumbing" }, { ref: "bulkco", name: "Bulk Services" });
  f.supplierFacilities.push(
    { ref: "fixit-pdx", company: "fixit", name: "FixIt Portland" },
    { ref: "fixit-sea", company: "fixit", name: "FixIt Seattle", currency: "CAD" },
    { ref: "fixit-tac", company: "fixit", name: "FixIt Tacoma" },
    ...Array.from({ length: BULK }, (_, i) => ({
      ref: `bulk-${i + 1}`,
      company: "bulkco",
      name: `Bulk ${String(i + 1).padStart(2, "0")}`,
    })),
  );
  const rel = (ref: string) => f.buyerSupplierRelationships.find((r: { ref: string }) => r.ref === ref);
  Object.assign(rel("rel-1"), {
    isPreferred: true,
    trades: ["HVAC", "Refrigeration"],
    workOrdersRoutedTo: ["Dispatch@CoolCo.example"],
    supplierAccountEmails: ["accounts@coolco.example"],
    rankings: [
      { location: "store-1", problemType: "hvac", rank: 1 },
      { location: "store-2", problemType: "hvac", rank: 1 },
    ],
  });
  Object.assign(rel("rel-2"), {
    trades: ["HVAC", "Plumbing"],
    rankings: [
      { location: "store-1", problemType: "hvac", rank: 2 },
      { location: "store-1", problemType: "plumbing", rank: 1 },
    ],
  });
  f.buyerSupplierRelationships.push(
    {
      ref: "rel-fixit-pdx",
      buyer: "acme",
      supplierFacility: "fixit-pdx",
      trades: ["Plumbing"],
      rankings: [
        { location: "store-1", problemType: "hvac", rank: 2 },
        { location: "store-1", problemType: "plumbing", rank: 2 },
      ],
    },
    { ref: "rel-fixit-sea", buyer: "acme", supplierFacility: "fixit-sea" },
    {
      ref: "rel-coolco-sea",
      buyer: "acme",
      supplierFacility: "coolco-sea",
      rankings: [{ location: "store-1", problemType: "hvac", rank: 3 }],
    },
    ...Array.from({ length: BULK }, (_, i) => ({
      ref: `rel-bulk-${i + 1}`,
      buyer: "acme",
      supplierFacility: `bulk-${i + 1}`,
      rankings: [{ location: "store-2", problemType: "plumbing", rank: i + 1 <= 5 ? i + 1 : i }],
    })),
    {
      ref: "rel-g",
      buyer: "globex",
      supplierFacility: "coolco-pdx",
      rankings: [{ location: "g-store", problemType: "g-hvac", rank: 1 }],
    },
  );
  f.contacts.push({
    ref: "dana",
    email: "dana@fixit.example",
    nameGiven: "Dana",
    nameFamily: "Drain",
    supplierFacility: "fixit-pdx",
    roles: ["dispatcher"],
  });
  f.apiKeys.push({
    ref: "fixit-key",
    kind: "supplier",
    contact: "dana",
    rateLimit: { requests: 1000, windowSeconds: 20 },
  });
  return f;
}
