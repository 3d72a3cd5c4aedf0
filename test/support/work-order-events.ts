// A work order to write events about and the events' context and payloads, for the tests that write
// work order events directly (events, resilience); and the body of a buyer's create, for those that POST.
import type { WorkOrderEventContext } from "../../src/schema/work-orders/events.ts";
import type { TestApp } from "./app.ts";

/** The body of acme's POST /work_orders at store-1 (hvac, acme-hq, by alice), with `extra` fields. */
export const acmeWorkOrderBody = (refs: Record<string, number>, extra: Record<string, unknown> = {}) => ({
  title: "Cooler warm",
  locationId: refs["store-1"],
  problemTypeId: refs.hvac,
  buyerFacilityId: refs["acme-hq"],
  buyerCompanyId: refs.acme,
  createdBy: "alice@acme.example",
  ...extra,
});

/** A work order of acme at store-1, assigned to coolco-pdx, for events to be about (title and status may differ). */
export async function acmeWorkOrder(
  t: TestApp,
  fields: { title?: string; status?: "ConfirmedByServiceProvider" | "PendingConfirmationByServiceProvider" } = {},
) {
  const { refs } = t.fixture;
  return t.db.workOrder.create({
    data: {
      buyerCompanyId: refs.acme,
      buyerFacilityId: refs["acme-hq"],
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      title: "Leaking unit",
      status: "ConfirmedByServiceProvider",
      createdBy: "alice@acme.example",
      supplierFacilityId: refs["coolco-pdx"],
      statusChangedAt: new Date(),
      ...fields,
    },
  });
}

export function context(
  t: TestApp,
  workOrderId: number,
  overrides: Partial<WorkOrderEventContext> = {},
): WorkOrderEventContext {
  return {
    workOrderId,
    buyerCompanyId: t.fixture.refs.acme,
    customer: "Acme Foods",
    location: "Store 1 Portland",
    supplierFacilityId: t.fixture.refs["coolco-pdx"],
    visibleToSupplierFacilityIds: [],
    status: "ConfirmedByServiceProvider",
    ...overrides,
  };
}

export const confirmed = (at = new Date()) => ({
  oldStatus: "PendingConfirmationByServiceProvider" as const,
  newStatus: "ConfirmedByServiceProvider" as const,
  changedBy: "Bob Tech",
  changedAt: at.toISOString(),
  action: "confirm",
});

export const note = (text: string, at = new Date()) => ({
  newNote: text,
  addedBy: "Alice Admin",
  addedAt: at.toISOString(),
});
