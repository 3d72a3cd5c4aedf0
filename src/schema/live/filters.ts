// Which messages a subscription receives: those addressed to its key's tenant (the recipients rules,
// exactly as for webhook endpoints), narrowed by its filters. Filters only narrow: they are applied to
// what the key may already see.
import type { Audience } from "../work-orders/public.ts";
import { addressedTo } from "../work-orders/public.ts";
import type { LiveMessage } from "./stream.ts";

export interface EventFilters {
  eventTypes?: readonly string[] | null;
  workOrderId?: number | null;
  locationIds?: readonly number[] | null;
  /** A status before or after the event (or, for creates and notes, the work order's status then). */
  statuses?: readonly string[] | null;
  /** The supplier assigned at the event, or the one a reassignment took it from. */
  supplierFacilityIds?: readonly number[] | null;
}

const given = <T>(list: readonly T[] | null | undefined): list is readonly T[] => list != null;

/** Statuses an event is about: before and after a status update, the status at a create or a note. */
function statusesOf(m: LiveMessage): unknown[] {
  return [m.data.oldStatus, m.data.newStatus, m.facts?.status].filter((s) => s !== undefined);
}

// `facts?.`: a message from a relay older than the stream (a rolling upgrade) has none; the filters
// that need them do not match it.
export function accepts(audience: Audience, filters: EventFilters): (m: LiveMessage) => boolean {
  const { eventTypes, workOrderId, locationIds, statuses, supplierFacilityIds } = filters;
  return (m) =>
    addressedTo(audience, m) &&
    (!given(eventTypes) || eventTypes.includes(m.event_type)) &&
    (workOrderId == null || m.data.workOrderId === workOrderId) &&
    (!given(locationIds) || locationIds.includes(m.facts?.locationId as number)) &&
    (!given(statuses) || statusesOf(m).some((s) => statuses.includes(s as string))) &&
    (!given(supplierFacilityIds) ||
      (m.facts?.supplierFacilityIds ?? []).some((id) => supplierFacilityIds.includes(id)));
}
