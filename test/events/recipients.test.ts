// The Events tables of the specification as a pure function: who hears what.
import { describe, expect, it } from "vitest";
import { messagesFor, type Message } from "../../src/schema/work-orders/events.ts";
import type { Status } from "../../src/schema/work-orders/rules/state-machine.ts";

const BUYER = 7;
const SUPPLIER = 70;
const OTHER = 71;

function event(eventType: string, payload: Record<string, unknown>) {
  return {
    id: 1n,
    eventType,
    payload: {
      workOrderId: 5,
      buyerCompanyId: BUYER,
      customer: "Acme Foods",
      location: "Store 1",
      supplierFacilityId: SUPPLIER,
      visibleToSupplierFacilityIds: [],
      changedBy: "Alice",
      changedAt: "2026-11-22T10:00:00.000Z",
      ...payload,
    },
  };
}
const status = (oldStatus: Status | null, newStatus: Status, extra: Record<string, unknown> = {}) =>
  event("workorder.status_update", { oldStatus, newStatus, status: newStatus, action: "x", ...extra });
const to = (messages: Message[]) =>
  messages.map((m) => `${"buyerCompanyId" in m.to ? "buyer" : `supplier:${m.to.supplierFacilityId}`} ${m.event_type}`);
const off = { visibilityWebhooks: false };

describe("buyer company endpoints", () => {
  it("get every creation, with the initial status and no oldStatus or customer", () => {
    const messages = messagesFor(
      event("workorder.create", { newStatus: "Unassigned", status: "Unassigned", supplierFacilityId: null }),
      off,
    );
    expect(to(messages)).toEqual(["buyer workorder.create"]);
    expect(messages[0].data).toEqual({
      workOrderId: 5,
      location: "Store 1",
      newStatus: "Unassigned",
      changedBy: "Alice",
      changedAt: "2026-11-22T10:00:00.000Z",
    });
  });

  it("get status_update only when the status changes value", () => {
    expect(to(messagesFor(status("TechEnRoute", "TechWaitingOnSite"), off))).toEqual(["buyer workorder.status_update"]);
    expect(to(messagesFor(status("TechScheduled", "TechScheduled"), off))).toEqual([]);
  });

  it("get an intermediate Rejected update, then the new status, on reassignment", () => {
    const messages = messagesFor(
      status("ConfirmedByServiceProvider", "PendingConfirmationByServiceProvider", {
        previousSupplierFacilityId: OTHER,
      }),
      off,
    );
    const buyer = messages.filter((m) => "buyerCompanyId" in m.to).map((m) => [m.data.oldStatus, m.data.newStatus]);
    expect(buyer).toEqual([
      ["ConfirmedByServiceProvider", "Rejected"],
      ["Rejected", "PendingConfirmationByServiceProvider"],
    ]);
  });
});

describe("supplier facility endpoints", () => {
  it("get create when a work order starts waiting for them, without oldStatus and with customer", () => {
    const created = messagesFor(
      event("workorder.create", {
        newStatus: "PendingConfirmationByServiceProvider",
        status: "PendingConfirmationByServiceProvider",
      }),
      off,
    );
    expect(to(created)).toEqual(["buyer workorder.create", `supplier:${SUPPLIER} workorder.create`]);
    expect(created[1].data).toMatchObject({
      customer: "Acme Foods",
      newStatus: "PendingConfirmationByServiceProvider",
    });
    expect(created[1].data).not.toHaveProperty("oldStatus");
    const opened = messagesFor(
      event("workorder.create", {
        newStatus: "SupplierInitiatedPendingApproval",
        status: "SupplierInitiatedPendingApproval",
      }),
      off,
    );
    expect(to(opened)).toContain(`supplier:${SUPPLIER} workorder.create`);
    const approved = messagesFor(status("PendingApproval", "PendingConfirmationByServiceProvider"), off);
    expect(to(approved)).toEqual(["buyer workorder.status_update", `supplier:${SUPPLIER} workorder.create`]);
    const reassigned = messagesFor(
      status("TechAssigned", "PendingConfirmationByServiceProvider", { previousSupplierFacilityId: OTHER }),
      off,
    );
    expect(to(reassigned).filter((r) => r.startsWith("supplier"))).toEqual([`supplier:${SUPPLIER} workorder.create`]);
  });

  it("get nothing while the buyer's approval is pending", () => {
    expect(
      to(messagesFor(event("workorder.create", { newStatus: "PendingApproval", status: "PendingApproval" }), off)),
    ).toEqual(["buyer workorder.create"]);
    expect(
      to(
        messagesFor(
          event("workorder.new_note", { status: "PendingApproval", newNote: "hi", addedBy: "A", addedAt: "t" }),
          off,
        ),
      ),
    ).toEqual(["buyer workorder.new_note"]);
  });

  it("get status_update for the listed statuses only", () => {
    const heard: Status[] = [
      "ConfirmedByServiceProvider",
      "TechAssigned",
      "TechScheduled",
      "TechRescheduled",
      "WorkUnsatisfactory",
      "WorkReviewedAndCompleted",
      "CancelledWithReason",
      "PaymentMade",
    ];
    for (const s of heard)
      expect(to(messagesFor(status("Unassigned", s), off)), s).toContain(
        `supplier:${SUPPLIER} workorder.status_update`,
      );
    const silent: Status[] = ["TechEnRoute", "TechWaitingOnSite", "TechWorkingOnSite", "WaitingForReview"];
    for (const s of silent)
      expect(to(messagesFor(status("TechAssigned", s), off)), s).toEqual(["buyer workorder.status_update"]);
    expect(to(messagesFor(status("TechAssigned", "WorkIncompleteWithReason"), off))).toContain(
      `supplier:${SUPPLIER} workorder.status_update`,
    );
    expect(to(messagesFor(status("TechWorkingOnSite", "WorkIncompleteWithReason"), off))).toEqual([
      "buyer workorder.status_update",
    ]);
  });

  it("get nothing when the work order is reassigned away from them", () => {
    const messages = messagesFor(
      status("ConfirmedByServiceProvider", "PendingConfirmationByServiceProvider", {
        previousSupplierFacilityId: OTHER,
      }),
      off,
    );
    expect(to(messages).some((r) => r.startsWith(`supplier:${OTHER}`))).toBe(false);
  });

  it("get notes of assigned work orders, with photos of bulk posts", () => {
    const messages = messagesFor(
      event("workorder.new_note", {
        status: "TechScheduled",
        newNote: "",
        photo: "https://p/1.jpg",
        photos: ["https://p/1.jpg", "https://p/2.jpg"],
        addedBy: "A",
        addedAt: "t",
      }),
      off,
    );
    expect(to(messages)).toEqual(["buyer workorder.new_note", `supplier:${SUPPLIER} workorder.new_note`]);
    expect(messages[1].data).toEqual({
      workOrderId: 5,
      newNote: "",
      photo: "https://p/1.jpg",
      photos: ["https://p/1.jpg", "https://p/2.jpg"],
      addedBy: "A",
      addedAt: "t",
    });
  });

  it("on the visibility list get events only when the company enables visibility webhooks", () => {
    const note = event("workorder.new_note", {
      status: "TechScheduled",
      visibleToSupplierFacilityIds: [OTHER],
      newNote: "n",
      addedBy: "A",
      addedAt: "t",
    });
    expect(to(messagesFor(note, off))).not.toContain(`supplier:${OTHER} workorder.new_note`);
    expect(to(messagesFor(note, { visibilityWebhooks: true }))).toContain(`supplier:${OTHER} workorder.new_note`);
  });
});
