// `operator webhooks …`: endpoints (add, list, rotate, disable, enable, delete, test) and the delivery
// log with its replays (docs/events.md).
import { inTransaction, joinable } from "../../schema/core/transaction.ts";
import {
  addEndpoint,
  deleteEndpoint,
  DELIVERY_STATUSES,
  disableEndpoint,
  enableEndpoint,
  endpointDeliveries,
  listEndpoints,
  redeliver,
  redeliverEndpointFailures,
  rotateEndpointSecret,
  sendTestEvent,
  type DeliveryStatus,
} from "../../schema/webhooks/public.ts";
import { CommandFailed, OWNER_OPTIONS, UsageError, int, owner, str, time, type Command } from "../command.ts";

const endpointId = (args: string[]) => int(args[0], "endpointId")!;

export const webhookCommands: Command[] = [
  {
    name: "webhooks add",
    usage:
      "(--buyer-company <id> | --supplier-facility <id>) --url <https url> --events <e1,e2> [--mode test|production]",
    help: `Registers a webhook endpoint for one buyer company or one supplier facility. Prints {id, secret}:
the signing secret (whsec_…), shown again only by apply for fixture endpoints.`,
    options: {
      ...OWNER_OPTIONS,
      url: {
        type: "string",
        value: "<https url>",
        help: "where deliveries are POSTed (http and private addresses only with WEBHOOK_ALLOW_INSECURE_URLS=true)",
      },
      events: {
        type: "string",
        value: "<e1,e2>",
        help: "workorder.create, workorder.status_update, workorder.new_note (comma-separated)",
      },
      mode: { type: "string", value: "test|production", help: "sent as x-webhook-mode; default production" },
    },
    writes: (result: { id: number }) => [result.id],
    async run({ values, config, db }) {
      const url = str(values, "url");
      const events = str(values, "events");
      if (!url || !events) throw new UsageError("--url and --events are required");
      const mode = str(values, "mode") ?? "production";
      if (mode !== "test" && mode !== "production") throw new UsageError("--mode is test or production");
      return addEndpoint(db(), {
        ...owner(values),
        url,
        events: events.split(",").map((e) => e.trim()),
        mode,
        allowInsecure: config.webhookAllowInsecureUrls,
      });
    },
  },
  {
    name: "webhooks list",
    usage: "[--buyer-company <id>] [--supplier-facility <id>]",
    help: `Lists endpoints, oldest first: id, url, events, mode, owner, rotating (a previous secret still
signs), disabledAt. Secrets are never listed.`,
    options: OWNER_OPTIONS,
    run: ({ values, db }) => listEndpoints(db(), owner(values)),
  },
  {
    name: "webhooks rotate",
    usage: "<endpointId>",
    args: ["endpointId"],
    help: `Replaces the signing secret. The previous one keeps signing next to it for 24 hours.
Prints {id, secret, previousSecretExpiresAt}.`,
    writes: (result: { id: number }) => [result.id],
    run: ({ args, db }) => rotateEndpointSecret(db(), endpointId(args)),
  },
  {
    name: "webhooks test",
    usage: "<endpointId> --event workorder.create|workorder.status_update|workorder.new_note",
    args: ["endpointId"],
    help: `Sends a signed sample event to the endpoint now (like stripe trigger), with the headers and
signatures of a real delivery and a made-up work order (workOrderId 0). Not logged, not retried.
Prints {endpointId, url, eventType, webhookId, acknowledged, statusCode, latencyMs, error, body, …};
exits 1 when the receiver did not answer 2xx.`,
    options: { event: { type: "string", value: "<event type>", help: "the event type of the sample; required" } },
    async run({ args, values, config, db }) {
      const event = str(values, "event");
      if (!event) throw new UsageError("--event is required");
      const result = await sendTestEvent(db(), endpointId(args), event, {
        allowInsecureUrls: config.webhookAllowInsecureUrls,
      });
      if (!result.acknowledged)
        throw new CommandFailed(`the endpoint did not acknowledge the test event: ${result.error}`, result);
      return result;
    },
  },
  {
    name: "webhooks disable",
    usage: "<endpointId>",
    args: ["endpointId"],
    help: `Stops all sending to the endpoint: no deliveries for new events, and its pending deliveries
(first attempts and retries) become failed. Prints {id, disabledAt, pendingDeliveriesStopped}.`,
    writes: (result: { id: number }) => [result.id],
    run: ({ args, db }) => disableEndpoint(db(), endpointId(args)),
  },
  {
    name: "webhooks enable",
    usage: "<endpointId>",
    args: ["endpointId"],
    help: `Delivers events relayed from now on again. Deliveries stopped while it was disabled are sent
again with webhooks redeliver-failures. Prints {id, disabledAt: null}.`,
    writes: (result: { id: number }) => [result.id],
    run: ({ args, db }) => enableEndpoint(db(), endpointId(args)),
  },
  {
    name: "webhooks delete",
    usage: "<endpointId>",
    args: ["endpointId"],
    help: `Deletes the endpoint and its delivery log. A fixture ref naming it is forgotten, so applying
that fixture again registers a new endpoint. Prints {id, deleted, deliveriesDeleted}.`,
    writes: (result: { id: number }) => [result.id],
    run: ({ args, db }) =>
      inTransaction(db(), async (tx) => {
        const id = endpointId(args);
        const result = await deleteEndpoint(joinable(tx), id);
        // "webhookEndpoint": the ref kind apply.ts records for fixture endpoints.
        await tx.operatorRef.deleteMany({ where: { kind: "webhookEndpoint", entityId: id } });
        return result;
      }),
  },
  {
    name: "webhooks deliveries",
    usage: "<endpointId> [--status pending|delivered|failed|expired] [--since <ISO time>] [--limit <n>] [--offset <n>]",
    args: ["endpointId"],
    help: "The endpoint's delivery log, newest first: each delivery's webhook-id, event, status and attempts.",
    options: {
      status: { type: "string", value: DELIVERY_STATUSES.join("|"), help: "only deliveries in this state" },
      since: { type: "string", value: "<ISO time>", help: "only changes at or after this time" },
      limit: { type: "string", value: "<n>", help: "page size (default 25, at most 100)" },
      offset: { type: "string", value: "<n>", help: "deliveries to skip" },
    },
    async run({ args, values, db }) {
      const status = str(values, "status");
      if (status !== undefined && !DELIVERY_STATUSES.includes(status as DeliveryStatus))
        throw new UsageError(`--status is one of ${DELIVERY_STATUSES.join(", ")}`);
      return endpointDeliveries(db(), endpointId(args), {
        status: status as DeliveryStatus | undefined,
        since: time(str(values, "since"), "--since"),
        limit: int(str(values, "limit"), "--limit"),
        offset: int(str(values, "offset"), "--offset"),
      });
    },
  },
  {
    name: "webhooks redeliver",
    usage: "<webhookId> [--force]",
    args: ["webhookId"],
    help: `Sends a delivery again (same webhook-id and body) while its change is under three hours old;
--force gives it a fresh three-hour window.`,
    options: { force: { type: "boolean", help: "past the three-hour rule (operator only)" } },
    writes: (result: { webhookId: string }) => [result.webhookId],
    run: ({ args: [webhookId], values, db }) => redeliver(db(), webhookId, values.force === true),
  },
  {
    name: "webhooks redeliver-failures",
    usage: "<endpointId> --since <ISO time> [--force]",
    args: ["endpointId"],
    help: "Sends again every failed, expired or still-retrying delivery of the endpoint for changes since a time.",
    options: {
      since: { type: "string", value: "<ISO time>", help: "changes at or after this time; required" },
      force: { type: "boolean", help: "past the three-hour rule (operator only)" },
    },
    writes: (result: { redelivered: string[] }) => result.redelivered,
    async run(input) {
      const since = time(str(input.values, "since"), "--since");
      if (!since) throw new UsageError("--since is required");
      const id = endpointId(input.args);
      return redeliverEndpointFailures(input.db(), id, since, input.values.force === true);
    },
  },
];
