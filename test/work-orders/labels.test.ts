// PUT /v1/buyer/work_order/work_orders/{woId}/labels: full replacement with the asset labels' rules
// (ids shape, live labels of the company's work order catalog only, same 400 for unknown, foreign and
// denied work orders), with nothing written when refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, withReadOnlyKey, type TestApp } from "../support/app.ts";

let t: TestApp;
let refs: Record<string, number>;
const wo: Record<string, number> = {};
const label: Record<string, number> = {};
const path = (id: number | string) => `/v1/buyer/work_order/work_orders/${id}/labels`;
const linked = async (workOrderId: number) =>
  (await t.db.workOrderLabelLink.findMany({ where: { workOrderId }, orderBy: { labelId: "asc" } })).map(
    (l) => l.labelId,
  );

async function expectRefused(body: unknown, id = wo.acme, key = "acme-key", message?: string) {
  const before = await t.db.workOrderLabelLink.findMany({ orderBy: [{ workOrderId: "asc" }, { labelId: "asc" }] });
  const reply = await t.call(key, "PUT", path(id), body);
  expect(reply.status, JSON.stringify(body)).toBe(400);
  expect(reply.body.type).toBe("invalidInputDataException");
  if (message) expect(reply.body.message).toContain(message);
  expect(await t.db.workOrderLabelLink.findMany({ orderBy: [{ workOrderId: "asc" }, { labelId: "asc" }] })).toEqual(
    before,
  );
  return reply;
}

beforeAll(async () => {
  t = await startTestApp({ fixture: withReadOnlyKey() }); // plus a read-only Acme key
  refs = t.fixture.refs;
  label.urgent = refs.urgent;
  const make = async (
    ref: string,
    data: { buyerCompanyId: number; kind: "asset" | "work_order"; name: string; deletedAt?: Date },
  ) => (label[ref] = (await t.db.label.create({ data })).id);
  await make("warranty", { buyerCompanyId: refs.acme, kind: "work_order", name: "Warranty" });
  await make("retired", { buyerCompanyId: refs.acme, kind: "work_order", name: "Retired", deletedAt: new Date() });
  await make("globex", { buyerCompanyId: refs.globex, kind: "work_order", name: "Globex label" });
  label.assetCritical = refs.critical;
  const base = {
    locationId: refs["store-1"],
    problemTypeId: refs.hvac,
    createdBy: "alice@acme.example",
    status: "Unassigned" as const,
    statusChangedAt: new Date(),
  };
  wo.acme = (
    await t.db.workOrder.create({
      data: { ...base, buyerCompanyId: refs.acme, buyerFacilityId: refs["acme-hq"], title: "Label me" },
    })
  ).id;
  wo.other = (
    await t.db.workOrder.create({
      data: { ...base, buyerCompanyId: refs.acme, buyerFacilityId: refs["acme-hq"], title: "Keep mine" },
    })
  ).id;
  wo.globex = (
    await t.db.workOrder.create({
      data: {
        ...base,
        buyerCompanyId: refs.globex,
        buyerFacilityId: refs["globex-hq"],
        locationId: refs["g-store"],
        problemTypeId: refs.hvac,
        title: "Globex",
      },
    })
  ).id;
  await t.db.workOrderLabelLink.create({ data: { workOrderId: wo.other, labelId: label.urgent } });
});
afterAll(() => t?.close());

describe("PUT work order labels", () => {
  it("replaces the full set and returns the labels now active", async () => {
    const reply = await t.call("acme-key", "PUT", path(wo.acme), { ids: [label.warranty, label.urgent, label.urgent] });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ type: "Label", status: "ok", count: 2 });
    expect(reply.body.data.map((l: { id: number }) => l.id)).toEqual(
      [label.urgent, label.warranty].sort((a, b) => a - b),
    );
    expect(reply.body.data.find((l: { id: number }) => l.id === label.urgent)).toEqual({
      id: label.urgent,
      name: "Urgent",
      color: "#f57c00",
      buyerCompanyId: refs.acme,
    });
    expect(await linked(wo.acme)).toEqual([label.urgent, label.warranty].sort((a, b) => a - b));
    const narrowed = await t.call("acme-key", "PUT", path(wo.acme), { ids: [label.warranty] });
    expect(narrowed.body.data.map((l: { id: number }) => l.id)).toEqual([label.warranty]);
    expect(await linked(wo.acme)).toEqual([label.warranty]);
    // Other work orders keep theirs.
    expect(await linked(wo.other)).toEqual([label.urgent]);
  });

  it("clears every label with an empty array", async () => {
    const reply = await t.call("acme-key", "PUT", path(wo.acme), { ids: [] });
    expect(reply.body).toMatchObject({ status: "ok", data: [], count: 0 });
    expect(await linked(wo.acme)).toEqual([]);
  });

  it("needs ids as an array of whole numbers", async () => {
    await t.call("acme-key", "PUT", path(wo.acme), { ids: [label.urgent] });
    for (const body of [
      {},
      { ids: null },
      { ids: label.urgent },
      { ids: String(label.urgent) },
      { ids: [1.5] },
      { ids: [String(label.urgent)] },
      { ids: [null] },
      { ids: [true] },
    ]) {
      await expectRefused(body);
    }
    expect(await linked(wo.acme)).toEqual([label.urgent]);
  });

  it("accepts only live work order labels of the company's catalog, listing the offending ids", async () => {
    for (const bad of [label.globex, label.retired, label.assetCritical, 999_999]) {
      const reply = await expectRefused({ ids: [label.warranty, bad] });
      expect(reply.body.message).toContain(String(bad));
      expect(reply.body.message).not.toContain(String(label.warranty));
    }
    const both = await expectRefused({ ids: [label.globex, label.retired] });
    expect(both.body.message).toContain(`${label.globex}, ${label.retired}`);
  });

  it("gives the same 400 for an unknown, a foreign and a denied work order", async () => {
    const unknown = await expectRefused({ ids: [label.urgent] }, 999_999);
    const foreign = await expectRefused({ ids: [label.urgent] }, wo.globex);
    const denied = await expectRefused({ ids: [label.urgent] }, wo.acme, "acme-readonly-key");
    const generic = (reply: { body: { message: string } }, id: number) => reply.body.message.replace(String(id), "N");
    expect(generic(foreign, wo.globex)).toBe(generic(unknown, 999_999));
    expect(generic(denied, wo.acme)).toBe(generic(unknown, 999_999));
    // The Globex key cannot label Acme's work order with Globex labels either.
    await expectRefused({ ids: [label.globex] }, wo.acme, "globex-key");
    expect((await t.call("acme-key", "PUT", path("abc"), { ids: [] })).status).toBe(400);
  });

  it("is a buyer route only", async () => {
    expect(
      (
        await t.call("inhouse-key", "PUT", `/v1/supplier/work_order/work_orders/${wo.acme}/labels`, {
          ids: [label.urgent],
        })
      ).status,
    ).toBe(404);
  });
});
