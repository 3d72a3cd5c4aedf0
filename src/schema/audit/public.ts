// What the operator CLI uses of the audit log.
export { operatorAuditLog } from "./rules.ts";
