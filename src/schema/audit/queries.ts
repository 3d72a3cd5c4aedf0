// The audit log of a buyer key's own company (GraphQL only; rules in rules.ts).
import { builder } from "../core/builder.ts";
import { pageQuery } from "../core/list.ts";
import { AuditEntryPage } from "./types.ts";
import { auditScope, listAudit } from "./rules.ts";

builder.queryField("auditLog", (t) =>
  t.field({
    subGraphs: ["graphql"],
    description: "Every committed mutation made by this company's keys, newest first (buyer keys).",
    type: AuditEntryPage,
    args: {
      since: t.arg({ type: "DateTime", required: false, description: "Entries at or after this time" }),
      until: t.arg({ type: "DateTime", required: false, description: "Entries before this time" }),
      operation: t.arg.string({ required: false, description: "e.g. createWorkOrder" }),
      channel: t.arg.string({ required: false, description: "buyer (REST) or graphql" }),
      apiKeyId: t.arg.int({ required: false, description: "Only entries made with this API key" }),
      contactId: t.arg.int({ required: false, description: "Only entries made by this contact" }),
      recordType: t.arg.string({ required: false, description: "e.g. WorkOrder" }),
      recordId: t.arg.string({ required: false, description: "Entries that wrote this record id" }),
      limit: t.arg.int({ required: false, description: "Page size (default 25, maximum 100)" }),
      offset: t.arg.int({ required: false, description: "Entries to skip (default 0)" }),
    },
    resolve: (_root, args, ctx, info) => listAudit(ctx.db, auditScope(ctx.viewer), args, pageQuery(ctx, info)),
  }),
);
