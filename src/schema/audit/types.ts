// GraphQL types of the audit log (GraphQL only: not in the REST interfaces).
import { builder } from "../core/builder.ts";

const GRAPHQL_ONLY = { subGraphs: ["graphql" as const] };

const AuditEntryRef = builder.prismaObject("AuditEntry", {
  ...GRAPHQL_ONLY,
  description: "One committed mutation: who made it, what it wrote, when, and the request's trace id",
  fields: (t) => ({
    id: t.string({ resolve: (e) => e.id.toString() }),
    at: t.expose("at", { type: "DateTime" }),
    channel: t.exposeString("channel", { description: "buyer, supplier or partners (REST), graphql, or operator" }),
    apiKeyId: t.exposeInt("apiKeyId", { nullable: true }),
    contactId: t.exposeInt("contactId", { nullable: true }),
    actor: t.exposeString("actor", {
      description: "The key's contact (e-mail), or operator:<user> for the operator CLI",
    }),
    operation: t.exposeString("operation", {
      description: "The mutation (GraphQL field; REST routes map to one each) or CLI command",
    }),
    recordType: t.exposeString("recordType", { nullable: true }),
    recordIds: t.exposeStringList("recordIds", {
      description: "The records it wrote: ids named in its arguments and ids of what it returned",
    }),
    traceId: t.exposeString("traceId", { description: "The request's X-Trace-Id" }),
  }),
});

export const AuditEntryPage = builder.objectRef<{ data: unknown[]; count: number }>("AuditEntryPage").implement({
  ...GRAPHQL_ONLY,
  fields: (t) => ({
    data: t.field({ type: [AuditEntryRef], resolve: (p) => p.data as never }),
    count: t.exposeInt("count", { description: "Total matching entries, not the page length" }),
  }),
});
