// Every operation of the three OpenAPI documents, called as an integrator would, and every answer
// checked against the document by test/support/app.ts's `call` (test/support/openapi-check.ts):
// ordinary answers (each list and count, each read of a real record, the fixture's own records),
// bad ones (an empty body, an unknown filter, a bad id) and errors (no key, a record that does not
// exist). The integration tests' own exchanges go through the same check (OPENAPI_VIOLATIONS).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
const docs: Record<string, any> = {};
const KEYS: Record<string, string> = { buyer: "acme-key", supplier: "coolco-key", partners: "inhouse-partner-key" };

beforeAll(async () => {
  t = await startTestApp();
  for (const iface of Object.keys(KEYS)) docs[iface] = (await t.call(null, "GET", `/v1/${iface}/openapi.json`)).body;
});
afterAll(() => t?.close());

type Op = { path: string; method: string; op: any };
const operations = (doc: any): Op[] =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );

/** An id a list answers for the collection a `{id}` path reads, else 1. */
async function realId(key: string, path: string, ids: Map<string, number>): Promise<number> {
  const collection = path.replace(/\/\{\w+\}.*$/, "");
  if (!ids.has(collection)) {
    const list = await t.call(key, "GET", collection);
    ids.set(collection, Array.isArray(list.body?.data) && list.body.data[0]?.id ? list.body.data[0].id : 1);
  }
  return ids.get(collection)!;
}

/**
 * Records the base fixture lacks, so that reads answer real rows: a work order assigned to the fixture's
 * supplier (its first status change has `from: null`) and that supplier's proposal for it.
 */
async function seed() {
  const first = async (key: string, path: string) => (await t.call(key, "GET", path)).body.data[0];
  const me = (await t.call("acme-key", "GET", "/v1/buyer/me")).body.data;
  const order = await t.call("acme-key", "POST", "/v1/buyer/work_order/work_orders", {
    title: "Walk-in cooler not cooling",
    locationId: (await first("acme-key", "/v1/buyer/location/locations")).id,
    problemTypeId: (await first("acme-key", "/v1/buyer/work_order/problem_types")).id,
    supplierFacilityId: (await first("acme-key", "/v1/buyer/supplier_facilities")).id,
    buyerFacilityId: me.buyerFacilityId,
    buyerCompanyId: me.buyerCompanyId,
    createdBy: me.email,
  });
  expect(order.status, JSON.stringify(order.body)).toBe(200);
  const proposal = await t.call("coolco-key", "POST", "/v1/supplier/quote/proposals", {
    workOrderId: order.body.data.id,
    totalAfterTax: "120.00",
    scope: "Replace the evaporator fan motor",
  });
  expect(proposal.status, JSON.stringify(proposal.body)).toBe(200);
}

describe("every REST answer matches the published OpenAPI document", () => {
  beforeAll(seed);

  for (const iface of Object.keys(KEYS)) {
    it(`${iface}: every operation, ordinary, bad and error answers`, async () => {
      const key = KEYS[iface];
      const ids = new Map<string, number>();
      const calls: string[] = [];
      for (const { path, method, op } of operations(docs[iface])) {
        let concrete = path;
        for (const [, name] of path.matchAll(/\{(\w+)\}/g))
          concrete = concrete.replace(`{${name}}`, String(name === "ids" ? "1,2" : await realId(key, path, ids)));
        const body = op.requestBody?.content?.["application/json"] ? {} : undefined;
        // ordinary (reads) or bad (writes with an empty body)
        await t.call(key, method, concrete, body);
        // errors: no key; a record that does not exist; an unknown filter on a list
        await t.call(null, method, concrete, body);
        if (path.includes("{")) await t.call(key, method, path.replace(/\{\w+\}/g, "2147483000"), body);
        if (method === "GET" && op.parameters?.some((p: any) => p.name === "sort_by"))
          await t.call(key, method, `${concrete}?bogusFilter=1`);
        calls.push(`${method} ${path}`);
      }
      expect(calls.length).toBe(operations(docs[iface]).length);
      expect(t.violations.filter((v) => v.path.startsWith(`/v1/${iface}/`))).toEqual([]);
    });
  }
});
