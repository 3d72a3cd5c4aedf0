// Property tests of the lifecycle: no sequence of actions ever leaves the transition table.
// 1. Pure, over the table itself: 200 seeded random sequences of 15 steps through WORK_ORDER_STATES.
// 2. Through the HTTP API: 20 seeded random sequences of buyer and supplier actions; every accepted
//    step must be a row of the table, every refused one must write nothing, and the stored history
//    must replay through the table.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { TransitionRefused } from "../../src/schema/core/state-table.ts";
import {
  initialStatus,
  STATUSES,
  TRANSITIONS,
  WORK_ORDER_STATES,
  type ActorKind,
  type Status,
  type TransitionFacts,
} from "../../src/schema/work-orders/rules/state-machine.ts";

/** mulberry32: a small seeded PRNG, so a failure replays exactly. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
const pickFrom = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)];

/**
 * A random step from `status`: mostly one the table allows (cancel, which ends every sequence, only
 * among the arbitrary picks), else any row, so sequences go deep and refusals stay common.
 */
function randomRow(random: () => number, status: Status, actors: readonly ActorKind[]) {
  const rows = TRANSITIONS.filter((r) => actors.includes(r.actor));
  const onward = rows.filter((r) => r.from.includes(status) && r.action !== "cancel");
  return pickFrom(random, random() < 0.8 && onward.length ? onward : rows);
}

/** Is (from, action, actor, to) a row of the table? */
const inTable = (from: Status, action: string, actor: ActorKind, to: Status) =>
  TRANSITIONS.some((r) => r.action === action && r.actor === actor && r.from.includes(from) && r.to.includes(to));

describe("the transition table (pure)", () => {
  it("names only known statuses", () => {
    for (const row of TRANSITIONS)
      for (const s of [...row.from, ...row.to]) expect(STATUSES, `${row.action}: ${s}`).toContain(s);
  });

  it("keeps 200 random sequences of 15 steps inside the table, and reaches every stored status", () => {
    const random = prng(20261122);
    const reached = new Set<Status>();
    for (let sequence = 0; sequence < 200; sequence++) {
      const actor: ActorKind = random() < 0.8 ? "buyer" : "supplier";
      let status = initialStatus({ actor, needsApproval: random() < 0.5, hasSupplier: random() < 0.7 });
      reached.add(status);
      for (let step = 0; step < 15; step++) {
        // Now and then an action no row has for this actor (unknown, or the other side's).
        const odd =
          random() < 0.05
            ? pickFrom(random, [
                { action: "teleport", actor: "buyer" as const },
                { action: "confirm", actor: "buyer" as const },
              ])
            : null;
        const { action, actor: who } = odd ?? randomRow(random, status, ["buyer", "supplier", "system"]);
        const facts: TransitionFacts = {
          hasSupplier: random() < 0.7,
          supplierInitiated: random() < 0.2,
          outcome: random() < 0.5 ? "completed" : "incomplete",
          nextSupplierFound: random() < 0.5,
        };
        const row = TRANSITIONS.find((r) => r.action === action && r.actor === who);
        let next: Status;
        try {
          next = WORK_ORDER_STATES.next(action, who, status, { facts });
        } catch (error) {
          expect(error).toBeInstanceOf(TransitionRefused);
          // Refused exactly when the table has no such row from here, and the message says where we are.
          expect(row?.from.includes(status) ?? false).toBe(false);
          if (row) expect((error as Error).message).toContain(status);
          continue;
        }
        expect(STATUSES).toContain(next);
        expect(inTable(status, action, who, next), `${status} -${action}/${who}-> ${next}`).toBe(true);
        status = next;
        reached.add(status);
      }
    }
    // `Rejected` exists only as the old supplier's intermediate update; no row stores it.
    expect([...reached].sort()).toEqual(STATUSES.filter((s) => s !== "Rejected").sort());
  });
});

describe("random action sequences through the HTTP API", () => {
  let t: TestApp;
  let refs: Record<string, number>;
  beforeAll(async () => {
    t = await startTestApp();
    refs = t.fixture.refs;
  });
  afterAll(() => t?.close());

  type Step = { action: string; actor: ActorKind; body: Record<string, unknown> };
  const randomStep = (random: () => number, status: Status): Step => {
    const row = randomRow(random, status, ["buyer", "supplier"]);
    const body: Record<string, unknown> = {
      technicianEmail: "tina@coolco.example",
      scheduledAt: "2026-12-01T09:00:00Z",
      outcome: random() < 0.5 ? "completed" : "incomplete",
      reason: "part on order",
      ...(random() < 0.3 ? { note: { text: "random note", noteAddedBy: "qa@acme.example" } } : {}),
    };
    if (row.action === "reassign")
      return { ...row, body: { supplierFacilityId: pickFrom(random, [refs["coolco-pdx"], refs["inhouse-west"]]) } };
    return { action: row.action, actor: row.actor, body };
  };

  const send = (wo: { id: number; supplierFacilityId: number | null }, step: Step) => {
    if (step.action === "reassign")
      return t.call("acme-key", "PATCH", `/v1/buyer/work_order/work_orders/${wo.id}`, step.body);
    if (step.actor === "buyer")
      return t.call("acme-key", "PATCH", `/v1/buyer/work_order/work_orders/${step.action}`, {
        id: wo.id,
        ...step.body,
      });
    const key = wo.supplierFacilityId === refs["inhouse-west"] ? "inhouse-key" : "coolco-key";
    return t.call(key, "PATCH", `/v1/supplier/work_order/work_orders/${step.action}`, { id: wo.id, ...step.body });
  };

  it("never leaves the table over 20 sequences of 10 steps", async () => {
    const random = prng(4242);
    const outcomes: Record<string, number> = {};
    const reached = new Set<Status>();
    for (let sequence = 0; sequence < 20; sequence++) {
      const created = await t.call("acme-key", "POST", "/v1/buyer/work_order/work_orders", {
        title: `Random ${sequence}`,
        locationId: refs["store-1"],
        problemTypeId: refs.hvac,
        buyerFacilityId: refs["acme-hq"],
        buyerCompanyId: refs.acme,
        createdBy: "alice@acme.example",
        needApproval: random() < 0.3,
        ...(random() < 0.8 ? { supplierFacilityId: refs["coolco-pdx"] } : {}),
      });
      expect(created.status).toBe(200);
      const id: number = created.body.data.id;
      for (let stepNo = 0; stepNo < 10; stepNo++) {
        const wo = await t.db.workOrder.findUniqueOrThrow({ where: { id } });
        const step = randomStep(random, wo.status);
        const where = `sequence ${sequence} step ${stepNo}: ${wo.status} -${step.action}/${step.actor}->`;
        const allowed = TRANSITIONS.some(
          (r) => r.action === step.action && r.actor === step.actor && r.from.includes(wo.status),
        );
        const noOp = step.action === "reassign" && step.body.supplierFacilityId === wo.supplierFacilityId;
        // A supplier acts only on work orders assigned to it and past the buyer's approval.
        const supplierBlind =
          step.actor === "supplier" && (wo.supplierFacilityId === null || wo.status === "PendingApproval");
        const locked =
          step.action === "cancel" &&
          (await t.db.serviceCall.count({ where: { workOrderId: id, checkInAt: { not: null }, checkOutAt: null } })) >
            0;
        const changesBefore = await t.db.workOrderStatusChange.count({ where: { workOrderId: id } });
        const reply = await send(wo, step);
        const after = await t.db.workOrderStatusChange.findMany({ where: { workOrderId: id }, orderBy: { id: "asc" } });
        const stored = await t.db.workOrder.findUniqueOrThrow({ where: { id } });
        expect(STATUSES, where).toContain(stored.status);
        outcomes[reply.status] = (outcomes[reply.status] ?? 0) + 1;
        reached.add(stored.status);
        if (noOp) {
          expect(reply.status, where).toBe(200);
          expect(after).toHaveLength(changesBefore);
        } else if (allowed && !supplierBlind && !locked) {
          expect(reply.status, `${where} ${reply.body.message}`).toBe(200);
          expect(after).toHaveLength(changesBefore + 1);
          expect(inTable(wo.status, step.action, step.actor, stored.status), `${where} ${stored.status}`).toBe(true);
        } else {
          expect(reply.status, where).toBe(locked && allowed && !supplierBlind ? 409 : 400);
          expect(after, where).toHaveLength(changesBefore);
          expect(stored.status).toBe(wo.status);
        }
      }
      // The stored history replays through the table from its create entry.
      const history = await t.db.workOrderStatusChange.findMany({ where: { workOrderId: id }, orderBy: { id: "asc" } });
      expect(history[0]).toMatchObject({ action: "create", from: null });
      for (const [i, change] of history.slice(1).entries()) {
        expect(change.from).toBe(history[i].to);
        expect(
          inTable(change.from!, change.action, change.actorKind as ActorKind, change.to),
          `${change.from} -${change.action}-> ${change.to}`,
        ).toBe(true);
      }
    }
    // The sequences went somewhere: most steps accepted, refusals exercised, the far end of the table reached.
    expect(outcomes[200]).toBeGreaterThan(100);
    expect(outcomes[400]).toBeGreaterThan(10);
    for (const status of [
      "TechWorkingOnSite",
      "WaitingForReview",
      "WorkReviewedAndCompleted",
      "WorkUnsatisfactory",
      "CancelledWithReason",
    ] as const) {
      expect(reached).toContain(status);
    }
  }, 120_000); // 200 requests: slower than the default timeout on a busy machine
});
