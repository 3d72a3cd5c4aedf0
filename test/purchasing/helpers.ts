// The internal teams' test world: the base fixture plus a second buyer's in-house team with a partner
// key (the foreign team), and partner keys of Acme's team with other roles (approver, technician,
// read-only). Helpers create catalogs and work orders through the API, as a client would.
import { expect } from "vitest";
import { BASE_FIXTURE, startTestApp, type Reply, type TestApp } from "../support/app.ts";

export const PARTNERS = "/v1/partners";
/** Acme's in-house team (contact ivy, role dispatcher): purchasing.write and inventory.write. */
export const TEAM = "inhouse-partner-key";
/** Another buyer's in-house team. */
export const FOREIGN = "globex-partner-key";
export const APPROVER = "inhouse-approver-key";
export const TECH = "inhouse-tech-key";
export const READONLY = "inhouse-readonly-key";
/** A partner key of a third-party supplier company: no internal team. */
export const NO_TEAM = "coolco-partner-key";

const limit = { requests: 100000, windowSeconds: 20 };

function purchasingFixture() {
  const fixture = structuredClone(BASE_FIXTURE);
  fixture.supplierCompanies.push({ ref: "globex-inhouse", name: "Globex Maintenance", internalTeamOf: "globex" });
  fixture.supplierFacilities.push({ ref: "globex-team", company: "globex-inhouse", name: "Globex Maintenance East" });
  fixture.contacts.push(
    {
      ref: "gus",
      email: "gus@globex.example",
      nameGiven: "Gus",
      nameFamily: "Globex",
      supplierFacility: "globex-team",
      roles: ["dispatcher"],
    },
    {
      ref: "pam",
      email: "pam@acme.example",
      nameGiven: "Pam",
      nameFamily: "Purchasing",
      supplierFacility: "inhouse-west",
      roles: ["purchasing_manager"],
    },
    {
      ref: "tess",
      email: "tess@acme.example",
      nameGiven: "Tess",
      nameFamily: "Tech",
      supplierFacility: "inhouse-west",
      roles: ["technician"],
    },
    {
      ref: "vic",
      email: "vic@acme.example",
      nameGiven: "Vic",
      nameFamily: "Viewer",
      supplierFacility: "inhouse-west",
      roles: ["viewer"],
    },
  );
  fixture.apiKeys.push(
    { ref: FOREIGN, kind: "partner", contact: "gus", rateLimit: limit },
    { ref: APPROVER, kind: "partner", contact: "pam", rateLimit: limit },
    { ref: TECH, kind: "partner", contact: "tess", rateLimit: limit },
    { ref: READONLY, kind: "partner", contact: "vic", rateLimit: limit },
    { ref: NO_TEAM, kind: "partner", contact: "bob", rateLimit: limit },
  );
  for (const key of fixture.apiKeys) if (key.ref === TEAM) key.rateLimit = limit;
  return fixture;
}

export const startPurchasingApp = () => startTestApp({ fixture: purchasingFixture() });

export function expectError(reply: Reply, status: number, type: string, message?: RegExp) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body).toMatchObject({ type, status: "error" });
  if (message) expect(reply.body.message).toMatch(message);
}

export async function ok(reply: Promise<Reply> | Reply): Promise<any> {
  const r = await reply;
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
}

/** POST under /v1/partners, expecting 200; returns data. */
export const create = (t: TestApp, path: string, body: unknown, key = TEAM) =>
  ok(t.call(key, "POST", `${PARTNERS}${path}`, body));

let serial = 0;
/** A vendor, a part (unit cost 12.50 unless given) and a stock location of the key's team. */
export async function catalog(t: TestApp, key = TEAM, part: Record<string, unknown> = {}) {
  serial++;
  const vendor = await create(t, "/purchasing/vendors", { name: `Vendor ${serial}` }, key);
  const p = await create(
    t,
    "/inventory/parts",
    { number: `P-${serial}`, name: `Part ${serial}`, unitCost: "12.50", defaultVendorId: vendor.id, ...part },
    key,
  );
  const location = await create(t, "/inventory/stock_locations", { name: `Van ${serial}` }, key);
  return { vendor, part: p, location };
}

/** A work order of Acme assigned to the in-house team's facility (served by TEAM). */
export async function servedWorkOrder(t: TestApp, supplier = "inhouse-west") {
  const refs = t.fixture.refs;
  return ok(
    t.call("acme-key", "POST", "/v1/buyer/work_order/work_orders", {
      title: "Leaking valve",
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      buyerFacilityId: refs["acme-hq"],
      buyerCompanyId: refs.acme,
      createdBy: "alice@acme.example",
      supplierFacilityId: refs[supplier],
    }),
  );
}

export const onHand = async (t: TestApp, stockLocationId: number, partId: number) =>
  (
    await t.db.stockLevel.findUnique({ where: { stockLocationId_partId: { stockLocationId, partId } } })
  )?.onHand.toFixed(4) ?? null;
