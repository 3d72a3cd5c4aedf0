// GraphQL types of the audit log (GraphQL only: not in the REST interfaces).
import { builder } from "../core/builder.ts";

const GRAPHQL_ONLY = { subGraphs: ["graphql" as const] };

const AuditEntryRef = builder.prismaObject("AuditEntry", {
  ...GRAPHQL_ONLY,
  description: "One committed mutation: who made it, what it wrote, when, and the request's trace id",
  fields: (t) => ({
    id: t.string({ resolve: (e) => e.id.toString(), description: "The audit entry's id (an integer as text)" }),
    at: t.expose("at", { type: "DateTime", description: "When the mutation was committed" }),
    channel: t.exposeString("channel", { description: "buyer, supplier or partners (REST), graphql, or operator" }),
    apiKeyId: t.exposeInt("apiKeyId", {
      nullable: true,
      description: "Id of the API key that made the change; null for the operator CLI",
    }),
    contactId: t.exposeInt("contactId", {
      nullable: true,
      description: "Id of the key's contact; null for the operator CLI",
    }),
    actor: t.exposeString("actor", {
      description: "The key's contact (e-mail), or operator:<user> for the operator CLI",
    }),
    operation: t.exposeString("operation", {
      description: "The mutation (GraphQL field; REST routes map to one each) or CLI command",
    }),
    recordType: t.exposeString("recordType", {
      nullable: true,
      description: "Type of the records written (e.g. WorkOrder); null when the operation names none",
    }),
    recordIds: t.exposeStringList("recordIds", {
      description: "The records it wrote: ids named in its arguments and ids of what it returned",
    }),
    traceId: t.exposeString("traceId", { description: "The request's X-Trace-Id" }),
  }),
});

export const AuditEntryPage = builder.objectRef<{ data: unknown[]; count: number }>("AuditEntryPage").implement({
  description: "One page of the audit log and how many entries match in all",
  ...GRAPHQL_ONLY,
  fields: (t) => ({
    data: t.field({
      type: [AuditEntryRef],
      resolve: (p) => p.data as never,
      description: "The entries of this page, newest first",
    }),
    count: t.exposeInt("count", { description: "Total matching entries, not the page length" }),
  }),
});
