// What the operator CLI uses of the audit log.
export { operatorAuditLog, type AuditFilter } from "./rules.ts";
