// WorkOrderFilter, the typed filter of the dashboard graph (graphql sub-graph only; docs/dashboards.md).
// rules/filter.ts translates it, in one place, to SQL and to a Prisma where; the key's scope is ANDed
// by every caller, so a filter only ever narrows what the key may read.
import { builder } from "../core/builder.ts";
import { DateTimeRange } from "../core/ranges.ts";
import type { WorkOrderFilterValue } from "./rules/filter.ts";
import { SEARCH_HELP } from "./search/text-query.ts";
import { WorkOrderStatusEnum } from "./types.ts";

const IN_LIST = "Any of these (absent: no narrowing; an empty list matches nothing)";

export const WorkOrderFilter = builder.inputRef<WorkOrderFilterValue>("WorkOrderFilter").implement({
  subGraphs: ["graphql"],
  description:
    "Narrows work orders within the key's scope (it never widens it). Every given field must match (AND); a list matches any of its values (OR).",
  fields: (t) => ({
    status: t.field({ type: [WorkOrderStatusEnum], description: `Statuses. ${IN_LIST}` }),
    ids: t.intList({ description: `Work order ids. ${IN_LIST}` }),
    locationIds: t.intList({ description: `Location ids. ${IN_LIST}` }),
    regionIds: t.intList({ description: `Region ids (of the work order's location). ${IN_LIST}` }),
    supplierFacilityIds: t.intList({ description: `Assigned supplier facility ids. ${IN_LIST}` }),
    problemTypeIds: t.intList({ description: `Problem type ids. ${IN_LIST}` }),
    priorities: t.intList({
      description: `Priorities as their expected resolution time in hours (woPriority). ${IN_LIST}`,
    }),
    assetIds: t.intList({ description: `Asset ids, as the main asset or a sub-asset. ${IN_LIST}` }),
    plannedMaintenanceScheduleIds: t.intList({
      description: `Planned maintenance schedules that generated the work order. ${IN_LIST}`,
    }),
    parentWorkOrderIds: t.intList({ description: `Parent work orders (of sub-contracted ones). ${IN_LIST}` }),
    isPM: t.boolean({ description: "Planned maintenance work orders only (true) or the others only (false)" }),
    createdAt: t.field({ type: DateTimeRange, description: "Created in this range (from inclusive, to exclusive)" }),
    statusChangedAt: t.field({
      type: DateTimeRange,
      description: "Last status change in this range (from inclusive, to exclusive)",
    }),
    assignedAt: t.field({
      type: DateTimeRange,
      description: "Assigned to their supplier in this range (from inclusive, to exclusive)",
    }),
    search: t.string({ description: `Text search, as on the work order list. ${SEARCH_HELP}` }),
  }),
});
