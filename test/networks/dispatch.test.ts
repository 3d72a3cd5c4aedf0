// Dispatch over the supplier network, end to end with the worker role running: the documented pattern
// (rank, assign the first, on decline re-rank and assign the next), the decline auto-pick walking the
// ranking (each picked supplier receives its workorder.create webhook; decliners, unranked and deleted
// relationships are never picked), and concurrent declines that never assign a next supplier twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { startReceiver } from "../support/receiver.ts";
import { waitFor } from "../support/wait.ts";
import { networkFixture } from "./network-fixture.ts";

let t: TestApp;
let refs: Record<string, number>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const WO = "/v1/buyer/work_order/work_orders";
const SUPPLIER_WO = "/v1/supplier/work_order/work_orders";
/** The supplier key of each facility in the network fixture. */
const KEY: Record<string, string> = {
  "coolco-pdx": "coolco-key",
  "inhouse-west": "inhouse-key",
  "fixit-pdx": "fixit-key",
  "coolco-sea": "unrelated-supplier-key",
};
const HOOKED = ["coolco-pdx", "inhouse-west", "fixit-pdx", "coolco-sea", "fixit-sea"];

beforeAll(async () => {
  receiver = await startReceiver();
  const fixture = networkFixture();
  fixture.webhookEndpoints = [
    {
      ref: "acme-hook",
      buyerCompany: "acme",
      url: `${receiver.base}/acme`,
      events: ["workorder.create", "workorder.status_update"],
    },
    ...HOOKED.map((f) => ({
      ref: `hook-${f}`,
      supplierFacility: f,
      url: `${receiver.base}/${f}`,
      events: ["workorder.create", "workorder.status_update"],
    })),
  ];
  t = await startTestApp({
    fixture,
    configure: (c) => {
      c.roles.worker = true;
      c.webhookAllowInsecureUrls = true;
      c.relayIntervalMs = 20;
    },
  });
  refs = t.fixture.refs;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const nameOf = (facilityId: number | null) =>
  Object.keys(KEY)
    .concat(HOOKED)
    .find((name) => refs[name] === facilityId) ?? String(facilityId);

async function create(supplier: string, problemType = "hvac"): Promise<number> {
  const reply = await t.call("acme-key", "POST", WO, {
    title: "Cooler warm",
    locationId: refs["store-1"],
    problemTypeId: refs[problemType],
    buyerFacilityId: refs["acme-hq"],
    buyerCompanyId: refs.acme,
    createdBy: "alice@acme.example",
    supplierFacilityId: refs[supplier],
  });
  expect(reply.status, reply.body.message).toBe(200);
  return reply.body.data.id;
}
const decline = (id: number, supplier: string) => t.call(KEY[supplier], "PATCH", `${SUPPLIER_WO}/decline`, { id });
const ranking = async (problemType = "hvac") =>
  (
    await t.call(
      "acme-key",
      "GET",
      `/v1/buyer/private_network/buyer_supplier_relationships/ranked/${refs["store-1"]}/${refs[problemType]}`,
    )
  ).body.data as {
    supplierFacilityId: number;
    rank: number;
  }[];
const assigned = async (id: number) =>
  t.db.workOrder.findUniqueOrThrow({ where: { id }, select: { status: true, supplierFacilityId: true } });

/** Waits until every event of the work order is relayed and every delivery of them has been answered. */
async function settled(workOrderId: number) {
  await waitFor(
    async () => {
      const unrelayed = await t.db.outboxEvent.count({ where: { workOrderId, relayedAt: null } });
      const events = await t.db.outboxEvent.findMany({ where: { workOrderId }, select: { id: true } });
      const pending = await t.db.webhookDelivery.count({
        where: { eventId: { in: events.map((e) => e.id) }, status: "pending" },
      });
      return unrelayed === 0 && pending === 0;
    },
    15_000,
    `events of work order ${workOrderId} delivered`,
  );
}
/** The workorder.create webhooks a supplier facility received about a work order. */
const createsFor = (supplier: string, workOrderId: number) =>
  receiver.receipts.filter(
    (r) =>
      r.path === `/${supplier}` && r.json.event_type === "workorder.create" && r.json.data.workOrderId === workOrderId,
  );
const declineCount = (workOrderId: number) =>
  t.db.workOrderStatusChange.count({ where: { workOrderId, action: "decline" } });

async function withAutoPick(work: () => Promise<void>) {
  await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { declineAutoPick: true } });
  try {
    await work();
  } finally {
    await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { declineAutoPick: false } });
  }
}

describe("the documented dispatch pattern (no auto-pick)", () => {
  it("rank, assign the first on create, on decline PendingApproval, re-rank and assign the next with PATCH", async () => {
    const ranked = await ranking();
    expect(ranked.map((r) => nameOf(r.supplierFacilityId))).toEqual([
      "coolco-pdx",
      "inhouse-west",
      "fixit-pdx",
      "coolco-sea",
    ]);
    const id = await create(nameOf(ranked[0].supplierFacilityId));
    const declined = await decline(id, "coolco-pdx");
    expect(declined.body.data).toMatchObject({ status: "PendingApproval", supplierFacilityId: null });
    // Re-rank: the decliner is still ranked first; the integrator assigns the next candidate.
    const again = await ranking();
    const next = again.find((r) => r.supplierFacilityId !== refs["coolco-pdx"])!;
    const patched = await t.call("acme-key", "PATCH", `${WO}/${id}`, { supplierFacilityId: next.supplierFacilityId });
    expect(patched.body.data).toMatchObject({
      status: "PendingConfirmationByServiceProvider",
      supplierFacilityId: refs["inhouse-west"],
    });
    expect((await t.call("inhouse-key", "GET", `${SUPPLIER_WO}/${id}`)).status).toBe(200);
    await settled(id);
    expect(createsFor("coolco-pdx", id)).toHaveLength(1);
    expect(createsFor("inhouse-west", id)).toHaveLength(1);
    expect(createsFor("inhouse-west", id)[0].json.data).toMatchObject({
      customer: "Acme Foods",
      newStatus: "PendingConfirmationByServiceProvider",
    });
  });
});

describe("decline with auto-pick", () => {
  it("walks the ranking: each decline assigns the next ranked supplier, which gets its workorder.create; none left: PendingApproval", async () => {
    await withAutoPick(async () => {
      const id = await create("coolco-pdx");
      const chain = ["coolco-pdx", "inhouse-west", "fixit-pdx", "coolco-sea"];
      for (const [i, supplier] of chain.entries()) {
        const reply = await decline(id, supplier);
        expect(reply.status, reply.body.message).toBe(200);
        const next = chain[i + 1];
        expect(reply.body.data).toMatchObject(
          next
            ? { status: "PendingConfirmationByServiceProvider", supplierFacilityId: refs[next] }
            : { status: "PendingApproval", supplierFacilityId: null },
        );
      }
      await settled(id);
      for (const supplier of chain) {
        const creates = createsFor(supplier, id);
        expect(creates, supplier).toHaveLength(1);
        expect(creates[0].json.data).toEqual({
          workOrderId: id,
          customer: "Acme Foods",
          location: "Store 1 Portland",
          newStatus: "PendingConfirmationByServiceProvider",
          changedBy: expect.any(String),
          changedAt: expect.any(String),
        });
      }
      // The buyer hears each handover as the old assignment's Rejected, then the new status.
      const buyer = receiver.receipts.filter(
        (r) => r.path === "/acme" && r.json.data.workOrderId === id && r.json.event_type === "workorder.status_update",
      );
      expect(buyer.map((r) => r.json.data.newStatus)).toEqual(
        expect.arrayContaining(["Rejected", "PendingConfirmationByServiceProvider", "PendingApproval"]),
      );
    });
  });

  it("never picks a supplier that declined this work order before, even without auto-pick at the time", async () => {
    const id = await create("inhouse-west"); // rank 2
    expect((await decline(id, "inhouse-west")).body.data.status).toBe("PendingApproval");
    await t.call("acme-key", "PATCH", `${WO}/${id}`, { supplierFacilityId: refs["fixit-pdx"] });
    await withAutoPick(async () => {
      expect((await decline(id, "fixit-pdx")).body.data.supplierFacilityId).toBe(refs["coolco-pdx"]); // rank 1, never declined
      expect((await decline(id, "coolco-pdx")).body.data.supplierFacilityId).toBe(refs["coolco-sea"]); // skips inhouse-west and fixit-pdx
      expect((await decline(id, "coolco-sea")).body.data).toMatchObject({
        status: "PendingApproval",
        supplierFacilityId: null,
      });
    });
    await settled(id);
    expect(createsFor("inhouse-west", id)).toHaveLength(1); // only its own first assignment
  });

  it("picks only ranked suppliers with a live relationship of this company", async () => {
    await withAutoPick(async () => {
      // store-1 / plumbing: inhouse-west 1, fixit-pdx 2; fixit-sea (in the network, unranked) and coolco-pdx
      // (ranked for hvac only) are never candidates.
      expect((await ranking("plumbing")).map((r) => nameOf(r.supplierFacilityId))).toEqual([
        "inhouse-west",
        "fixit-pdx",
      ]);
      const id = await create("fixit-pdx", "plumbing");
      await t.db.buyerSupplierRelationship.update({ where: { id: refs["rel-2"] }, data: { deletedAt: new Date() } });
      try {
        expect((await decline(id, "fixit-pdx")).body.data).toMatchObject({
          status: "PendingApproval",
          supplierFacilityId: null,
        });
      } finally {
        await t.db.buyerSupplierRelationship.update({ where: { id: refs["rel-2"] }, data: { deletedAt: null } });
      }
      await settled(id);
      expect(createsFor("fixit-sea", id)).toHaveLength(0);
      expect(createsFor("coolco-pdx", id)).toHaveLength(0);
    });
  });
});

describe("concurrent declines", () => {
  it("of one work order: one decline wins, the next supplier is assigned once and hears once", async () => {
    await withAutoPick(async () => {
      for (let round = 0; round < 3; round++) {
        const id = await create("coolco-pdx");
        const replies = await Promise.all(Array.from({ length: 6 }, () => decline(id, "coolco-pdx")));
        expect(replies.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
        expect(await assigned(id)).toEqual({
          status: "PendingConfirmationByServiceProvider",
          supplierFacilityId: refs["inhouse-west"],
        });
        expect(await declineCount(id)).toBe(1);
        expect(await t.db.outboxEvent.count({ where: { workOrderId: id, eventType: "workorder.status_update" } })).toBe(
          1,
        );
        await settled(id);
        expect(createsFor("inhouse-west", id)).toHaveLength(1);
        expect(createsFor("fixit-pdx", id)).toHaveLength(0);
      }
    });
  });

  it("of several work orders at once: each gets its own next supplier, skipping its own decliners", async () => {
    await withAutoPick(async () => {
      // Pairs: `fresh` is with coolco-pdx; `seen` was declined by inhouse-west first, then auto-picked coolco-pdx.
      const pairs = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const fresh = await create("coolco-pdx");
          const seen = await create("inhouse-west");
          expect((await decline(seen, "inhouse-west")).body.data.supplierFacilityId).toBe(refs["coolco-pdx"]);
          return { fresh, seen };
        }),
      );
      const replies = await Promise.all(
        pairs.flatMap(({ fresh, seen }) => [decline(fresh, "coolco-pdx"), decline(seen, "coolco-pdx")]),
      );
      expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
      for (const { fresh, seen } of pairs) {
        expect((await assigned(fresh)).supplierFacilityId).toBe(refs["inhouse-west"]);
        expect((await assigned(seen)).supplierFacilityId).toBe(refs["fixit-pdx"]);
        await settled(fresh);
        await settled(seen);
        expect(createsFor("inhouse-west", fresh)).toHaveLength(1);
        expect(createsFor("inhouse-west", seen)).toHaveLength(1); // its first assignment only
        expect(createsFor("fixit-pdx", seen)).toHaveLength(1);
      }
    });
  });

  it("racing the buyer's PATCH to the same next supplier: that supplier is assigned and told once", async () => {
    await withAutoPick(async () => {
      for (let round = 0; round < 4; round++) {
        const id = await create("coolco-pdx");
        const [declined, patched] = await Promise.all([
          decline(id, "coolco-pdx"),
          t.call("acme-key", "PATCH", `${WO}/${id}`, { supplierFacilityId: refs["inhouse-west"] }),
        ]);
        expect(patched.status).toBe(200);
        // Either the decline ran first (the PATCH is then a no-op), or the PATCH did (the decline is then refused).
        expect([200, 400]).toContain(declined.status);
        expect(await assigned(id)).toEqual({
          status: "PendingConfirmationByServiceProvider",
          supplierFacilityId: refs["inhouse-west"],
        });
        await settled(id);
        expect(createsFor("inhouse-west", id)).toHaveLength(1);
      }
    });
  });
});
