// What the transports (server, worker, operator CLI) use of webhooks: the jobs and their backlogs (the
// metrics), the AsyncAPI document, and the operator's endpoint, replay, test and explain commands.
export { startWebhookJobs } from "./jobs/start.ts";
export { pendingDeliveries, type DeliveryMetrics } from "./jobs/delivery.ts";
export { outboxBacklog, relayOutbox } from "./jobs/relay.ts";
// Live subscriptions hear what the same tenant's endpoints would.
export { audienceOf } from "./rules/audience.ts";
export { asyncApiJson } from "./asyncapi.ts";
export {
  addEndpoint,
  deleteEndpoint,
  disableEndpoint,
  enableEndpoint,
  endpointUrlProblem,
  listEndpoints,
  newSigningSecret,
  rotateEndpointSecret,
} from "./rules/endpoints.ts";
export { sendTestEvent } from "./rules/test-event.ts";
export { explainWorkOrderEvents } from "./rules/explain.ts";
export {
  DELIVERY_STATUSES,
  endpointDeliveries,
  redeliver,
  redeliverEndpointFailures,
  type DeliveryStatus,
} from "./rules/replay.ts";
