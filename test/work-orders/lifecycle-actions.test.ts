// Changes to existing work orders from outside: PATCH reassignment, the buyer and supplier status
// actions, visibility before approval, refused transitions (nothing written), the cancellation lock,
// decline with and without auto-pick, and the full happy path.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { acmeWorkOrderBody } from "../support/work-order-events.ts";

let t: TestApp;
let refs: Record<string, number>;
const WO = "/v1/buyer/work_order/work_orders";
const SUPPLIER_WO = "/v1/supplier/work_order/work_orders";

beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

async function create(extra: Record<string, unknown> = {}): Promise<{ id: number; status: string }> {
  const reply = await t.call("acme-key", "POST", WO, acmeWorkOrderBody(refs, extra));
  expect(reply.status).toBe(200);
  return reply.body.data;
}
const withCoolco = () => create({ supplierFacilityId: refs["coolco-pdx"] });

const buyer = (action: string, body: Record<string, unknown>, key = "acme-key") =>
  t.call(key, "PATCH", `${WO}/${action}`, body);
const supplier = (action: string, body: Record<string, unknown>, key = "coolco-key") =>
  t.call(key, "PATCH", `${SUPPLIER_WO}/${action}`, body);
const patch = (id: number | string, body: Record<string, unknown>, key = "acme-key") =>
  t.call(key, "PATCH", `${WO}/${id}`, body);

/** Everything an action may write, for "nothing written" checks. */
const written = async (workOrderId: number) => ({
  row: await t.db.workOrder.findUniqueOrThrow({ where: { id: workOrderId } }),
  changes: await t.db.workOrderStatusChange.count({ where: { workOrderId } }),
  events: await t.db.outboxEvent.count({ where: { workOrderId } }),
  notes: await t.db.workOrderNote.count({ where: { workOrderId } }),
  calls: await t.db.serviceCall.findMany({ where: { workOrderId }, orderBy: { id: "asc" } }),
});
const eventsOf = (workOrderId: number) => t.db.outboxEvent.findMany({ where: { workOrderId }, orderBy: { id: "asc" } });

/** Drives a work order assigned to coolco through supplier steps. */
async function advance(id: number, steps: [string, Record<string, unknown>?][]) {
  for (const [action, extra] of steps) {
    const reply = await supplier(action, { id, ...extra });
    expect(reply.status, `${action}: ${reply.body.message}`).toBe(200);
  }
}
const TO_ON_SITE: [string, Record<string, unknown>?][] = [
  ["confirm"],
  ["check_in", { technicianEmail: "tina@coolco.example" }],
];

describe("route table", () => {
  it("serves PATCH /work_orders/approve as the action, not as work order id 'approve'", async () => {
    const wo = await create({ needApproval: true });
    const reply = await buyer("approve", { id: wo.id });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ type: "WorkOrder", status: "ok", data: { id: wo.id, status: "Unassigned" } });
  });

  it("leaves PATCH /work_orders/append_notes to the notes endpoint", async () => {
    const wo = await create();
    const reply = await t.call("acme-key", "PATCH", `${WO}/append_notes`, {
      id: wo.id,
      note: { text: "hello", noteAddedBy: "alice@acme.example" },
    });
    expect(reply.body.type, reply.body.message).toBe("WorkOrderNote");
  });
});

describe("PATCH /work_orders/{id} (reassignment)", () => {
  it("reassigns: PendingConfirmationByServiceProvider, new supplier and contact, one status_update naming the previous supplier", async () => {
    const wo = await withCoolco();
    const reply = await patch(wo.id, {
      supplierFacilityId: refs["inhouse-west"],
      supplierPrimaryContactEmail: "Ivy@acme.example",
      title: "ignored",
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({
      status: "PendingConfirmationByServiceProvider",
      supplierFacilityId: refs["inhouse-west"],
      supplierPrimaryContactEmail: "ivy@acme.example",
      title: "Cooler warm",
    });
    expect(Date.parse(reply.body.data.assignedAt)).toBe(Date.parse(reply.body.data.statusChangedAt));
    expect(reply.body.data.statusChanges.map((c: { action: string }) => c.action)).toEqual(["create", "reassign"]);
    const events = await eventsOf(wo.id);
    expect(events.map((e) => e.eventType)).toEqual(["workorder.create", "workorder.status_update"]);
    expect(events[1].payload).toMatchObject({
      action: "reassign",
      oldStatus: "PendingConfirmationByServiceProvider",
      newStatus: "PendingConfirmationByServiceProvider",
      previousSupplierFacilityId: refs["coolco-pdx"],
      supplierFacilityId: refs["inhouse-west"],
    });
    // The old supplier loses the work order, the new one sees it.
    expect((await t.call("coolco-key", "GET", `${SUPPLIER_WO}/${wo.id}`)).status).toBe(400);
    expect((await t.call("inhouse-key", "GET", `${SUPPLIER_WO}/${wo.id}`)).status).toBe(200);
  });

  it("assigns an Unassigned work order", async () => {
    const wo = await create();
    const reply = await patch(wo.id, { supplierFacilityId: refs["coolco-pdx"] });
    expect(reply.body.data).toMatchObject({
      status: "PendingConfirmationByServiceProvider",
      supplierFacilityId: refs["coolco-pdx"],
    });
    expect((await eventsOf(wo.id))[1].payload).toMatchObject({
      oldStatus: "Unassigned",
      previousSupplierFacilityId: null,
    });
  });

  it("is a no-op for the same supplier and for supplierPrimaryContactEmail alone", async () => {
    const wo = await withCoolco();
    const before = await written(wo.id);
    const same = await patch(wo.id, {
      supplierFacilityId: refs["coolco-pdx"],
      supplierPrimaryContactEmail: "x@coolco.example",
    });
    const alone = await patch(wo.id, { supplierPrimaryContactEmail: "x@coolco.example" });
    for (const reply of [same, alone]) {
      expect(reply.status).toBe(200);
      expect(reply.body.data).toMatchObject({
        id: wo.id,
        supplierPrimaryContactEmail: null,
        status: "PendingConfirmationByServiceProvider",
      });
    }
    expect(await written(wo.id)).toEqual(before);
  });

  it("400 for an unknown, unrelated or cleared supplier, and from a status past the table's reach", async () => {
    const wo = await withCoolco();
    const before = await written(wo.id);
    for (const supplierFacilityId of [999999, refs["coolco-sea"], null]) {
      const reply = await patch(wo.id, { supplierFacilityId });
      expect(reply.status, String(supplierFacilityId)).toBe(400);
      expect(reply.body.type).toBe("invalidInputDataException");
    }
    expect(await written(wo.id)).toEqual(before);
    await advance(wo.id, TO_ON_SITE);
    const late = await written(wo.id);
    const refused = await patch(wo.id, { supplierFacilityId: refs["inhouse-west"] });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("TechWorkingOnSite");
    expect(await written(wo.id)).toEqual(late);
  });

  it("answers a nonexistent id, a foreign tenant and a denied key with the same 400", async () => {
    const wo = await withCoolco();
    const before = await written(wo.id);
    const unknown = await patch(999999, { supplierFacilityId: refs["inhouse-west"] });
    const foreign = await patch(wo.id, { supplierFacilityId: refs["inhouse-west"] }, "globex-key");
    await t.db.contact.update({ where: { id: refs.alice }, data: { roles: ["viewer"] } });
    await t.keyChangesSeen();
    let denied;
    try {
      denied = await patch(wo.id, { supplierFacilityId: refs["inhouse-west"] });
    } finally {
      await t.db.contact.update({ where: { id: refs.alice }, data: { roles: ["facility_manager"] } });
      await t.keyChangesSeen();
    }
    const normalise = (r: { body: { message: string } }) => r.body.message.replace(/\d+/g, "N");
    for (const reply of [unknown, foreign, denied]) {
      expect(reply.status).toBe(400);
      expect(normalise(reply)).toBe(normalise(unknown));
    }
    expect(await written(wo.id)).toEqual(before);
  });
});

describe("buyer status actions", () => {
  it("keeps a work order needing approval invisible to its supplier until approve", async () => {
    const wo = await create({ supplierFacilityId: refs["coolco-pdx"], needApproval: true });
    expect(wo.status).toBe("PendingApproval");
    expect((await t.call("coolco-key", "GET", `${SUPPLIER_WO}/${wo.id}`)).status).toBe(400);
    expect((await supplier("confirm", { id: wo.id })).status).toBe(400);
    const approved = await buyer("approve", {
      id: wo.id,
      note: { text: "approved, go", noteAddedBy: "alice@acme.example" },
    });
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({
      status: "PendingConfirmationByServiceProvider",
      approvedBy: "alice@acme.example",
    });
    expect(approved.body.data.approvedAt).toBe(approved.body.data.statusChangedAt);
    const seen = await t.call("coolco-key", "GET", `${SUPPLIER_WO}/${wo.id}`);
    expect(seen.status).toBe(200);
    expect(seen.body.data).toMatchObject({
      status: "PendingConfirmationByServiceProvider",
      approvedBy: null,
      approvedAt: null,
    });
    // The note is on the root thread, with its own event after the status change.
    const notes = await t.db.workOrderNote.findMany({ where: { workOrderId: wo.id } });
    expect(notes).toMatchObject([{ thread: "root", text: "approved, go", noteAddedBy: "alice@acme.example" }]);
    expect((await eventsOf(wo.id)).map((e) => e.eventType)).toEqual([
      "workorder.create",
      "workorder.status_update",
      "workorder.new_note",
    ]);
  });

  it("approves a supplier-initiated work order to ConfirmedByServiceProvider", async () => {
    const opened = await t.call("coolco-key", "POST", SUPPLIER_WO, {
      title: "Leak",
      locationId: refs["store-1"],
      problemTypeId: refs.plumbing,
    });
    const reply = await buyer("approve", { id: opened.body.data.id });
    expect(reply.body.data.status).toBe("ConfirmedByServiceProvider");
  });

  it("cancels with a reason note when no technician is on site", async () => {
    const wo = await withCoolco();
    const reply = await buyer("cancel", {
      id: wo.id,
      note: { text: "store closed", noteAddedBy: "alice@acme.example" },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data.status).toBe("CancelledWithReason");
    expect(await t.db.workOrderNote.count({ where: { workOrderId: wo.id, text: "store closed" } })).toBe(1);
  });

  it("sends reviewed work back as unsatisfactory with a note; the technician can check in again", async () => {
    const wo = await withCoolco();
    await advance(wo.id, [...TO_ON_SITE, ["check_out", { outcome: "completed" }]]);
    const reply = await buyer("work_unsatisfactory", {
      id: wo.id,
      note: { text: "still warm", noteAddedBy: "alice@acme.example" },
    });
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body).toMatchObject({ type: "WorkOrder", data: { id: wo.id, status: "WorkUnsatisfactory" } });
    expect(reply.body.data.statusChanges.at(-1)).toMatchObject({
      action: "work_unsatisfactory",
      from: "WaitingForReview",
      to: "WorkUnsatisfactory",
      actorKind: "buyer",
    });
    expect(
      (await eventsOf(wo.id)).slice(-2).map((e) => [e.eventType, (e.payload as { action?: string }).action]),
    ).toEqual([
      ["workorder.status_update", "work_unsatisfactory"],
      ["workorder.new_note", undefined],
    ]);
    await advance(wo.id, [["check_in", { technicianEmail: "tina@coolco.example" }]]);
    expect((await buyer("work_unsatisfactory", { id: wo.id })).status).toBe(400);
  });

  it("refuses an action the table does not allow with 400 naming the current status, writing nothing", async () => {
    const wo = await withCoolco();
    const cases: [() => Promise<{ status: number; body: any }>, string][] = [
      [() => buyer("approve", { id: wo.id }), "approve"],
      [
        () =>
          buyer("work_reviewed_and_completed", {
            id: wo.id,
            note: { text: "done?", noteAddedBy: "alice@acme.example" },
          }),
        "work_reviewed_and_completed",
      ],
      [() => buyer("work_unsatisfactory", { id: wo.id }), "work_unsatisfactory"],
      [() => supplier("en_route", { id: wo.id }), "en_route"],
      [() => supplier("schedule", { id: wo.id, scheduledAt: "2026-12-01T09:00:00Z" }), "schedule"],
      [() => supplier("check_out", { id: wo.id, outcome: "completed" }), "check_out"],
      [() => supplier("assign_tech", { id: wo.id, technicianEmail: "tina@coolco.example" }), "assign_tech"],
    ];
    const before = await written(wo.id);
    for (const [call, action] of cases) {
      const reply = await call();
      expect(reply.status, action).toBe(400);
      expect(reply.body.type).toBe("invalidInputDataException");
      expect(reply.body.message, action).toContain(
        `cannot ${action} a work order in status PendingConfirmationByServiceProvider`,
      );
    }
    expect(await written(wo.id)).toEqual(before);
  });

  it("refuses to cancel twice", async () => {
    const wo = await create();
    await buyer("cancel", { id: wo.id });
    const again = await buyer("cancel", { id: wo.id });
    expect(again.status).toBe(400);
    expect(again.body.message).toContain("CancelledWithReason");
  });

  it("answers actions on foreign, unknown and denied work orders with the same 400", async () => {
    const wo = await create({ needApproval: true });
    const before = await written(wo.id);
    const foreign = await buyer("approve", { id: wo.id }, "globex-key");
    const unknown = await buyer("approve", { id: 999999 });
    await t.db.contact.update({ where: { id: refs.alice }, data: { roles: ["viewer"] } });
    await t.keyChangesSeen();
    let denied;
    try {
      denied = await buyer("approve", { id: wo.id });
    } finally {
      await t.db.contact.update({ where: { id: refs.alice }, data: { roles: ["facility_manager"] } });
      await t.keyChangesSeen();
    }
    for (const reply of [foreign, unknown, denied]) {
      expect(reply.status).toBe(400);
      expect(reply.body.message.replace(/\d+/g, "N")).toBe(unknown.body.message.replace(/\d+/g, "N"));
    }
    expect(await written(wo.id)).toEqual(before);
  });
});

describe("cancellation lock", () => {
  it("409 naming the checked-in technician, nothing committed, then allowed after check-out", async () => {
    const wo = await withCoolco();
    await advance(wo.id, TO_ON_SITE);
    const before = await written(wo.id);
    const reply = await buyer("cancel", {
      id: wo.id,
      note: { text: "cancel please", noteAddedBy: "alice@acme.example" },
    });
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ type: "ConflictException", status: "error" });
    expect(reply.body.message).toContain("tina@coolco.example");
    expect(await written(wo.id)).toEqual(before);
    await advance(wo.id, [["check_out", { outcome: "completed" }]]);
    expect((await buyer("cancel", { id: wo.id })).body.data.status).toBe("CancelledWithReason");
  });

  it("409 when a technician is checked in on a sub-contracted work order, even without a recorded email", async () => {
    const parent = await create();
    const child = await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        locationId: refs["store-1"],
        problemTypeId: refs.hvac,
        title: "Sub-contracted",
        status: "TechWorkingOnSite",
        createdBy: "bob@coolco.example",
        statusChangedAt: new Date(),
        parentWorkOrderId: parent.id,
      },
    });
    const call = await t.db.serviceCall.create({ data: { workOrderId: child.id, checkInAt: new Date() } });
    const before = await written(parent.id);
    const anonymous = await buyer("cancel", { id: parent.id });
    expect(anonymous.status).toBe(409);
    expect(anonymous.body.message).toContain("a technician is checked in");
    await t.db.serviceCall.update({ where: { id: call.id }, data: { technicianEmail: "sub@contractor.example" } });
    const named = await buyer("cancel", { id: parent.id });
    expect(named.status).toBe(409);
    expect(named.body.message).toContain("sub@contractor.example");
    expect(await written(parent.id)).toEqual(before);
    // Without the company's lock the cancel goes through.
    await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { cancellationLock: false } });
    try {
      expect((await buyer("cancel", { id: parent.id })).body.data.status).toBe("CancelledWithReason");
    } finally {
      await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { cancellationLock: true } });
    }
  });
});

describe("supplier actions", () => {
  it("runs the happy path confirm → … → work_reviewed_and_completed", async () => {
    const wo = await withCoolco();
    const steps: [string, Record<string, unknown>, string][] = [
      ["confirm", {}, "ConfirmedByServiceProvider"],
      ["assign_tech", { technicianEmail: "Tina@Coolco.example" }, "TechAssigned"],
      ["schedule", { scheduledAt: "2026-12-01T09:00:00+01:00" }, "TechScheduled"],
      ["en_route", {}, "TechEnRoute"],
      ["arrive", {}, "TechWaitingOnSite"],
      ["check_in", { note: { text: "compressor iced over", noteAddedBy: "tina@coolco.example" } }, "TechWorkingOnSite"],
      [
        "check_out",
        { outcome: "completed", note: { text: "defrosted and recharged", noteAddedBy: "tina@coolco.example" } },
        "WaitingForReview",
      ],
    ];
    for (const [action, extra, status] of steps) {
      const reply = await supplier(action, { id: wo.id, ...extra });
      expect(reply.status, `${action}: ${reply.body.message}`).toBe(200);
      expect(reply.body.data.status).toBe(status);
    }
    const done = await buyer("work_reviewed_and_completed", {
      id: wo.id,
      note: { text: "thanks", noteAddedBy: "alice@acme.example" },
    });
    expect(done.body.data.status).toBe("WorkReviewedAndCompleted");
    const history = done.body.data.statusChanges.map(
      (c: { from: string; to: string; action: string; actorKind: string }) => [c.action, c.from, c.to, c.actorKind],
    );
    expect(history).toEqual([
      ["create", null, "PendingConfirmationByServiceProvider", "buyer"],
      ["confirm", "PendingConfirmationByServiceProvider", "ConfirmedByServiceProvider", "supplier"],
      ["assign_tech", "ConfirmedByServiceProvider", "TechAssigned", "supplier"],
      ["schedule", "TechAssigned", "TechScheduled", "supplier"],
      ["en_route", "TechScheduled", "TechEnRoute", "supplier"],
      ["arrive", "TechEnRoute", "TechWaitingOnSite", "supplier"],
      ["check_in", "TechWaitingOnSite", "TechWorkingOnSite", "supplier"],
      ["check_out", "TechWorkingOnSite", "WaitingForReview", "supplier"],
      ["work_reviewed_and_completed", "WaitingForReview", "WorkReviewedAndCompleted", "buyer"],
    ]);
    expect(done.body.data.serviceCalls).toHaveLength(1);
    expect(done.body.data.serviceCalls[0]).toMatchObject({
      technicianEmail: "tina@coolco.example",
      scheduledAt: "2026-12-01T08:00:00.000Z",
      checkInNote: "compressor iced over",
      checkOutNote: "defrosted and recharged",
      outcome: "completed",
      reason: null,
    });
    expect(done.body.data.serviceCalls[0].checkOutAt).not.toBeNull();
    // One event per status change, one create, one note (service call notes are not thread notes).
    const events = await eventsOf(wo.id);
    expect(events.map((e) => e.eventType)).toEqual([
      "workorder.create",
      ...Array(8).fill("workorder.status_update"),
      "workorder.new_note",
    ]);
    expect(events.slice(1, 9).map((e) => (e.payload as { action: string }).action)).toEqual(
      history.slice(1).map((h: string[]) => h[0]),
    );
    expect(await t.db.workOrderNote.count({ where: { workOrderId: wo.id } })).toBe(1);
    const hits = await t.db.$queryRaw<
      { id: number }[]
    >`SELECT id FROM "WorkOrder" WHERE "searchVector" @@ to_tsquery('english', 'iced & recharged')`;
    expect(hits.map((h) => h.id)).toEqual([wo.id]);
  });

  it("checks out incomplete with a reason, then reschedules and returns", async () => {
    const wo = await withCoolco();
    await advance(wo.id, TO_ON_SITE);
    const noReason = await supplier("check_out", { id: wo.id, outcome: "incomplete" });
    expect(noReason.status).toBe(400);
    expect(noReason.body.message).toMatch(/reason/);
    expect((await supplier("check_out", { id: wo.id, outcome: "partly" })).status).toBe(400);
    const incomplete = await supplier("check_out", { id: wo.id, outcome: "incomplete", reason: "part on order" });
    expect(incomplete.body.data.status).toBe("WorkIncompleteWithReason");
    expect(incomplete.body.data.serviceCalls[0]).toMatchObject({ outcome: "incomplete", reason: "part on order" });
    await advance(wo.id, [
      ["schedule", { scheduledAt: "2026-12-03T09:00:00Z" }],
      ["reschedule", { scheduledAt: "2026-12-04T09:00:00Z" }],
    ]);
    const eventsBefore = (await eventsOf(wo.id)).length;
    const again = await supplier("reschedule", { id: wo.id, scheduledAt: "2026-12-05T09:00:00Z" });
    expect(again.body.data.status).toBe("TechRescheduled");
    // Same status: a statusChanges entry, but no status_update event.
    expect(again.body.data.statusChanges.at(-1)).toMatchObject({
      action: "reschedule",
      from: "TechRescheduled",
      to: "TechRescheduled",
    });
    expect((await eventsOf(wo.id)).length).toBe(eventsBefore);
    // The next visit is a new service call carrying the schedule; it has no technician yet.
    expect(again.body.data.serviceCalls).toHaveLength(2);
    expect(again.body.data.serviceCalls[1]).toMatchObject({
      scheduledAt: "2026-12-05T09:00:00.000Z",
      technicianEmail: null,
    });
    const noTech = await supplier("check_in", { id: wo.id });
    expect(noTech.status).toBe(400);
    expect(noTech.body.message).toMatch(/technicianEmail/);
    await advance(wo.id, [["check_in", { technicianEmail: "tom@coolco.example" }]]);
    const calls = await t.db.serviceCall.findMany({ where: { workOrderId: wo.id }, orderBy: { id: "asc" } });
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatchObject({
      technicianEmail: "tom@coolco.example",
      scheduledAt: new Date("2026-12-05T09:00:00Z"),
    });
    expect(calls[1].checkInAt).not.toBeNull();
  });

  it("validates the action's own fields before writing", async () => {
    const wo = await withCoolco();
    await advance(wo.id, [["confirm"]]);
    const before = await written(wo.id);
    expect((await supplier("assign_tech", { id: wo.id })).status).toBe(400);
    expect((await supplier("assign_tech", { id: wo.id, technicianEmail: "not-an-email" })).status).toBe(400);
    await advance(wo.id, [["assign_tech", { technicianEmail: "tina@coolco.example" }]]);
    const assigned = await written(wo.id);
    expect((await supplier("schedule", { id: wo.id })).status).toBe(400);
    expect((await supplier("schedule", { id: wo.id, scheduledAt: "tomorrow" })).status).toBe(400);
    expect(
      (
        await supplier("schedule", {
          id: wo.id,
          note: { text: " ", noteAddedBy: "x@y.example" },
          scheduledAt: "2026-12-01T09:00:00Z",
        })
      ).status,
    ).toBe(400);
    expect(await written(wo.id)).toEqual(assigned);
    expect(before.changes).toBe(assigned.changes - 1);
  });

  it("lets only the assigned supplier act: a visibility-list supplier reads but cannot confirm", async () => {
    const wo = await withCoolco();
    await t.db.workOrderVisibility.create({ data: { workOrderId: wo.id, supplierFacilityId: refs["inhouse-west"] } });
    expect((await t.call("inhouse-key", "GET", `${SUPPLIER_WO}/${wo.id}`)).status).toBe(200);
    const before = await written(wo.id);
    expect((await supplier("confirm", { id: wo.id }, "inhouse-key")).status).toBe(400);
    expect((await supplier("confirm", { id: wo.id }, "unrelated-supplier-key")).status).toBe(400);
    expect(await written(wo.id)).toEqual(before);
  });

  it("gives the internal team full records and the third party masked ones on action replies", async () => {
    const mine = await create({ supplierFacilityId: refs["inhouse-west"] });
    const theirs = await withCoolco();
    await t.db.workOrder.updateMany({
      where: { id: { in: [mine.id, theirs.id] } },
      data: { glCode: "GL-7", internalNotes: "watch cost" },
    });
    const full = await supplier("confirm", { id: mine.id }, "inhouse-key");
    expect(full.body.data).toMatchObject({
      status: "ConfirmedByServiceProvider",
      glCode: "GL-7",
      internalNotes: "watch cost",
    });
    const masked = await supplier("confirm", { id: theirs.id });
    expect(masked.body.data).toMatchObject({ status: "ConfirmedByServiceProvider", glCode: null, internalNotes: null });
  });

  it("runs actions over GraphQL with the same rules, for the right keys only", async () => {
    const wo = await withCoolco();
    const mutation = `mutation($i: WorkOrderSupplierActionInput!) { workOrderConfirm(input: $i) { id status } }`;
    const asBuyer = await t.graphql("acme-key", mutation, { i: { id: wo.id } });
    expect(asBuyer.body.errors[0].extensions.code).toBe("ForbiddenException");
    const reply = await t.graphql("coolco-key", mutation, { i: { id: wo.id } });
    expect(reply.body.data.workOrderConfirm).toEqual({ id: wo.id, status: "ConfirmedByServiceProvider" });
    const twice = await t.graphql("coolco-key", mutation, { i: { id: wo.id } });
    expect(twice.body.errors[0].extensions.code).toBe("invalidInputDataException");
  });
});

describe("decline", () => {
  it("without auto-pick: PendingApproval with the supplier cleared, and the supplier loses sight of it", async () => {
    const wo = await withCoolco();
    const reply = await supplier("decline", {
      id: wo.id,
      note: { text: "too far", noteAddedBy: "bob@coolco.example" },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ status: "PendingApproval", supplierFacilityId: null, assignedAt: null });
    expect((await t.call("coolco-key", "GET", `${SUPPLIER_WO}/${wo.id}`)).status).toBe(400);
    const events = await eventsOf(wo.id);
    expect(events.map((e) => e.eventType)).toEqual([
      "workorder.create",
      "workorder.status_update",
      "workorder.new_note",
    ]);
    expect(events[1].payload).not.toHaveProperty("previousSupplierFacilityId");
    // The dispatch pattern: the buyer assigns the next candidate.
    expect((await patch(wo.id, { supplierFacilityId: refs["inhouse-west"] })).body.data.status).toBe(
      "PendingConfirmationByServiceProvider",
    );
  });

  it("with auto-pick: the next supplier by rank, skipping every earlier decliner, then PendingApproval when none is left", async () => {
    await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { declineAutoPick: true } });
    try {
      // Ranks for store-1/hvac: coolco-pdx 1, inhouse-west 2.
      const wo = await create({ supplierFacilityId: refs["inhouse-west"] });
      const first = await supplier("decline", { id: wo.id }, "inhouse-key");
      expect(first.body.data).toMatchObject({
        status: "PendingConfirmationByServiceProvider",
        supplierFacilityId: refs["coolco-pdx"],
      });
      const picked = (await eventsOf(wo.id)).at(-1)!;
      expect(picked.payload).toMatchObject({
        action: "decline",
        oldStatus: "PendingConfirmationByServiceProvider",
        newStatus: "PendingConfirmationByServiceProvider",
        previousSupplierFacilityId: refs["inhouse-west"],
        supplierFacilityId: refs["coolco-pdx"],
      });
      // coolco declines too: inhouse-west (rank 2) declined before, so nobody is left.
      const second = await supplier("decline", { id: wo.id });
      expect(second.body.data).toMatchObject({ status: "PendingApproval", supplierFacilityId: null });
      // A decline made while auto-pick was off is remembered too.
      await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { declineAutoPick: false } });
      const earlier = await create({ supplierFacilityId: refs["inhouse-west"] });
      expect((await supplier("decline", { id: earlier.id }, "inhouse-key")).body.data.status).toBe("PendingApproval");
      await patch(earlier.id, { supplierFacilityId: refs["coolco-pdx"] });
      await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { declineAutoPick: true } });
      expect((await supplier("decline", { id: earlier.id })).body.data).toMatchObject({
        status: "PendingApproval",
        supplierFacilityId: null,
      });
      // A ranked supplier whose relationship is deleted is never picked.
      const other = await create({ supplierFacilityId: refs["inhouse-west"] });
      await t.db.buyerSupplierRelationship.update({ where: { id: refs["rel-1"] }, data: { deletedAt: new Date() } });
      try {
        expect((await supplier("decline", { id: other.id }, "inhouse-key")).body.data).toMatchObject({
          status: "PendingApproval",
          supplierFacilityId: null,
        });
      } finally {
        await t.db.buyerSupplierRelationship.update({ where: { id: refs["rel-1"] }, data: { deletedAt: null } });
      }
    } finally {
      await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { declineAutoPick: false } });
    }
  });
});
