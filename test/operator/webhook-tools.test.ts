// The operator's webhook tools, run as the real CLI against a test app's database: `webhooks test`
// (a signed sample event to a real local receiver), `webhooks disable|enable|delete`, `events explain`
// (which endpoints got which event, which were skipped and why), WEBHOOK_ALLOW_INSECURE_URLS from the
// environment or .env, and `npm run -s operator` printing JSON only on stdout.
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deleteEndpoint,
  explainWorkOrderEvents,
  listEndpoints,
  relayOutbox,
  sendTestEvent,
} from "../../src/schema/webhooks/public.ts";
import {
  writeEvent,
  type NoteEventData,
  type StatusEventData,
  type WorkOrderEventContext,
} from "../../src/schema/work-orders/events.ts";
import type { Status } from "../../src/schema/work-orders/rules/state-machine.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { operatorCli, ROOT, type Run } from "../support/operator-cli.ts";
import { startReceiver } from "../support/receiver.ts";

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let failing: http.Server;
let failingUrl: string;
let tmp: string;
let workOrderId: number;
let acmeHook: number;
let coolcoHook: number;
let createOnlyHook: number;

const INSECURE = { WEBHOOK_ALLOW_INSECURE_URLS: "true" };
/** How late the receiver answers `webhooks test` (its latency is at least this). */
const RECEIVER_DELAY_MS = 300;
/** Each CLI run is a process of its own (~1 s of CPU, much more on a busy machine). */
const SPAWNS = { timeout: 240_000 };
const cli = (args: string[], env: Record<string, string> = {}) => operatorCli(t.databaseUrl, args, { env });
const json = (run: Run) => JSON.parse(run.stdout);
const ok = (run: Run) => {
  expect([run.code, run.stderr]).toEqual([0, ""]);
  return json(run);
};

beforeAll(async () => {
  receiver = await startReceiver();
  failing = http.createServer((req, res) => req.resume().on("end", () => res.writeHead(500).end()));
  await new Promise<void>((r) => failing.listen(0, "127.0.0.1", r));
  failingUrl = `http://127.0.0.1:${(failing.address() as { port: number }).port}/create-only`;
  t = await startTestApp();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "webhook-tools-"));
  const { refs } = t.fixture;
  acmeHook = refs["acme-hook"];
  coolcoHook = refs["coolco-hook"];
  await t.db.webhookEndpoint.update({ where: { id: acmeHook }, data: { url: `${receiver.base}/acme` } });
  await t.db.webhookEndpoint.update({ where: { id: coolcoHook }, data: { url: `${receiver.base}/coolco` } });
  createOnlyHook = (
    await t.db.webhookEndpoint.create({
      data: {
        buyerCompanyId: refs.acme,
        url: failingUrl,
        events: ["workorder.create"],
        secret: "whsec_dGVzdC1zZWNyZXQtZm9yLWNyZWF0ZS1vbmx5",
      },
    })
  ).id;
  workOrderId = (
    await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        locationId: refs["store-1"],
        problemTypeId: refs.hvac,
        title: "Leaking unit",
        status: "PendingConfirmationByServiceProvider",
        createdBy: "alice@acme.example",
        supplierFacilityId: refs["coolco-pdx"],
        statusChangedAt: new Date(),
      },
    })
  ).id;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  failing?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

function context(status: Status): WorkOrderEventContext {
  return {
    workOrderId,
    buyerCompanyId: t.fixture.refs.acme,
    customer: "Acme Foods",
    location: "Store 1 Portland",
    supplierFacilityId: t.fixture.refs["coolco-pdx"],
    visibleToSupplierFacilityIds: [],
    status,
  };
}

/** Writes a status event of the work order (as a status change would) and, unless told not to, relays it. */
async function statusEvent(
  type: "workorder.create" | "workorder.status_update",
  oldStatus: Status | null,
  newStatus: Status,
  relay = true,
) {
  const data: StatusEventData = {
    oldStatus,
    newStatus,
    changedBy: "Bob Tech",
    changedAt: new Date().toISOString(),
    action: "x",
  };
  await t.db.$transaction((tx) => writeEvent(tx, type, context(newStatus), data));
  if (relay) await relayOutbox({ db: t.db, now: () => new Date() });
}

describe("webhooks test", () => {
  it(
    "sends a signed sample event with a real delivery's headers and prints the receiver's status and latency",
    SPAWNS,
    async () => {
      const dotenvDir = path.join(tmp, "with-dotenv");
      fs.mkdirSync(dotenvDir);
      fs.writeFileSync(
        path.join(dotenvDir, ".env"),
        `DATABASE_URL=${t.databaseUrl}\nWEBHOOK_ALLOW_INSECURE_URLS=true\n`,
      );
      // The receiver answers late, so the printed latency is known to measure the round trip.
      receiver.state.delayMs = RECEIVER_DELAY_MS;
      const [buyer, supplier, refused, failed] = await Promise.all([
        cli(["webhooks", "test", String(acmeHook), "--event", "workorder.status_update"], INSECURE),
        // WEBHOOK_ALLOW_INSECURE_URLS and DATABASE_URL from .env only
        operatorCli(undefined, ["webhooks", "test", String(coolcoHook), "--event", "workorder.create"], {
          cwd: dotenvDir,
        }),
        cli(["webhooks", "test", String(coolcoHook), "--event", "workorder.new_note"]),
        cli(["webhooks", "test", String(createOnlyHook), "--event", "workorder.new_note"], INSECURE),
      ]).finally(() => (receiver.state.delayMs = 0));

      const sent = ok(buyer);
      expect(sent).toMatchObject({
        endpointId: acmeHook,
        url: `${receiver.base}/acme`,
        mode: "test",
        eventType: "workorder.status_update",
        subscribed: true,
        disabled: false,
        acknowledged: true,
        statusCode: 204,
        error: null,
      });
      expect(sent.webhookId).toMatch(/^msg_test_[0-9a-f]{16}$/);
      expect(sent.latencyMs).toBeGreaterThanOrEqual(RECEIVER_DELAY_MS);
      expect(sent.latencyMs).toBeLessThan(10_000); // milliseconds, within the attempt's timeout
      expect(sent.body).toEqual({
        event_type: "workorder.status_update",
        data: {
          workOrderId: 0,
          location: "Sample location",
          oldStatus: "PendingConfirmationByServiceProvider",
          newStatus: "ConfirmedByServiceProvider",
          changedBy: "Operator test event",
          changedAt: expect.any(String),
        },
      });
      const receipt = receiver.receipts.find((r) => r.headers["webhook-id"] === sent.webhookId)!;
      expect(receipt.path).toBe("/acme");
      expect(receipt.headers["x-webhook-mode"]).toBe("test");
      const { secret } = await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: acmeHook } });
      expect(new Webhook(secret).verify(receipt.body, receipt.headers as Record<string, string>)).toEqual(sent.body);
      const hmac = crypto
        .createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64"))
        .update(receipt.body)
        .digest("hex");
      expect(receipt.headers["x-signature-256"]).toBe(`sha256=${hmac}`);

      const toSupplier = ok(supplier);
      expect(toSupplier).toMatchObject({ acknowledged: true, statusCode: 204, mode: "production" });
      expect(toSupplier.body.data).toMatchObject({
        customer: "Sample customer",
        newStatus: "PendingConfirmationByServiceProvider",
      });
      expect(toSupplier.body.data).not.toHaveProperty("oldStatus");

      // Without WEBHOOK_ALLOW_INSECURE_URLS the http URL is refused exactly as the delivery worker refuses it.
      expect(refused.code).toBe(1);
      expect(json(refused)).toMatchObject({
        acknowledged: false,
        statusCode: null,
        subscribed: false,
        error: expect.stringMatching(/^endpoint URL must be https/),
      });
      expect(refused.stderr).toMatch(
        /^operator: the endpoint did not acknowledge the test event: endpoint URL must be https/,
      );

      // Failures before anything is sent (exit 1, stdout empty: the CLI's path is cli.test.ts's), in process.
      await expect(sendTestEvent(t.db, acmeHook, "workorder.exploded", { allowInsecureUrls: true })).rejects.toThrow(
        "--event must be one of workorder.create, workorder.status_update, workorder.new_note",
      );
      await expect(sendTestEvent(t.db, 999_999, "workorder.create", { allowInsecureUrls: true })).rejects.toThrow(
        "no webhook endpoint 999999",
      );

      // A receiver answering 500: exit 1, the result still on stdout.
      expect(failed.code).toBe(1);
      expect(json(failed)).toMatchObject({
        acknowledged: false,
        statusCode: 500,
        error: "HTTP 500",
        subscribed: false,
      });
      expect(json(failed).body.data).toMatchObject({
        workOrderId: 0,
        newNote: expect.any(String),
        addedBy: "Operator test event",
      });
      expect(failed.stderr).toBe("operator: the endpoint did not acknowledge the test event: HTTP 500\n");
      expect(await t.db.webhookDelivery.count()).toBe(0); // test events are not in the delivery log
    },
  );
});

describe("webhooks disable, enable and events explain", () => {
  it(
    "disable stops the endpoint's pending and new deliveries; explain says who got what and why not; enable resumes",
    SPAWNS,
    async () => {
      // 1. created, assigned to coolco: the buyer's two endpoints and coolco's get it (pending)
      await statusEvent("workorder.create", null, "PendingConfirmationByServiceProvider");
      expect(await t.db.webhookDelivery.count({ where: { endpointId: coolcoHook, status: "pending" } })).toBe(1);

      const disabled = ok(await cli(["webhooks", "disable", String(coolcoHook)]));
      expect(disabled).toEqual({ id: coolcoHook, disabledAt: expect.any(String), pendingDeliveriesStopped: 1 });
      const stopped = await t.db.webhookDelivery.findMany({ where: { endpointId: coolcoHook } });
      expect(stopped.map((d) => [d.status, d.lastError])).toEqual([["failed", "endpoint disabled by the operator"]]);

      // 2. confirmed while coolco's endpoint is disabled; 3. en route (suppliers do not hear it); 4. a note, not relayed yet
      await statusEvent(
        "workorder.status_update",
        "PendingConfirmationByServiceProvider",
        "ConfirmedByServiceProvider",
      );
      await statusEvent("workorder.status_update", "ConfirmedByServiceProvider", "TechEnRoute");
      const note: NoteEventData = { newNote: "On my way", addedBy: "Bob Tech", addedAt: new Date().toISOString() };
      await t.db.$transaction((tx) => writeEvent(tx, "workorder.new_note", context("TechEnRoute"), note));

      const explained = await cli(["events", "explain", String(workOrderId)]);
      expect(await listEndpoints(t.db, { supplierFacilityId: t.fixture.refs["coolco-pdx"] })).toEqual([
        expect.objectContaining({ id: coolcoHook, disabledAt: disabled.disabledAt }),
      ]);
      await expect(explainWorkOrderEvents(t.db, 999_999)).rejects.toThrow("no work order 999999");

      const out = ok(explained);
      const { refs } = t.fixture;
      const coolco = `supplier facility ${refs["coolco-pdx"]}`;
      expect(out).toMatchObject({ workOrderId, buyerCompanyId: refs.acme, visibilityWebhooks: false });
      expect(out.endpointsConsidered).toEqual([acmeHook, coolcoHook, createOnlyHook]);
      expect(out.events.map((e: { eventType: string }) => e.eventType)).toEqual([
        "workorder.create",
        "workorder.status_update",
        "workorder.status_update",
        "workorder.new_note",
      ]);
      const endpoint = (event: number, id: number) =>
        out.events[event].endpoints.find((e: { endpointId: number }) => e.endpointId === id);

      const [created, confirmed, enRoute, noted] = out.events;
      expect(
        created.messages.map((m: { audience: string; eventType: string }) => `${m.audience} ${m.eventType}`),
      ).toEqual([`buyer company ${refs.acme} workorder.create`, `${coolco} workorder.create`]);
      expect(endpoint(0, acmeHook)).toMatchObject({
        received: true,
        deliveries: [
          { eventType: "workorder.create", status: "pending", webhookId: `msg_${created.eventId}_${acmeHook}_0` },
        ],
      });
      expect(endpoint(0, createOnlyHook)).toMatchObject({ received: true });
      expect(endpoint(0, coolcoHook)).toMatchObject({
        received: true,
        owner: coolco,
        deliveries: [{ status: "failed", lastError: "endpoint disabled by the operator" }],
      });

      expect(endpoint(1, acmeHook).received).toBe(true);
      expect(endpoint(1, coolcoHook)).toMatchObject({
        received: false,
        skipped: expect.stringMatching(/^disabled: the endpoint was disabled \(since .*\) when the event was relayed$/),
      });
      expect(endpoint(1, createOnlyHook)).toMatchObject({
        received: false,
        skipped: "not subscribed: registered for workorder.create, not for workorder.status_update",
      });

      expect(enRoute.facts).toBe(`status ConfirmedByServiceProvider → TechEnRoute, assigned to ${coolco}`);
      expect(endpoint(2, coolcoHook)).toMatchObject({
        received: false,
        skipped: `not addressed: the recipients rules send this event to buyer company ${refs.acme}, not to ${coolco} (status ConfirmedByServiceProvider → TechEnRoute, assigned to ${coolco})`,
      });
      expect(noted.relayedAt).toBeNull();
      for (const id of [acmeHook, coolcoHook, createOnlyHook]) {
        expect(endpoint(3, id).received, String(id)).toBe(false);
        expect(endpoint(3, id).skipped).toMatch(id === acmeHook ? /^not relayed yet/ : /^not (subscribed|relayed yet)/);
      }
      expect(confirmed.relayedAt).not.toBeNull();

      const enabled = ok(await cli(["webhooks", "enable", String(coolcoHook)]));
      expect(enabled).toEqual({ id: coolcoHook, disabledAt: null });
      expect((await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: coolcoHook } })).disabledAt).toBeNull();
      await statusEvent("workorder.status_update", "TechEnRoute", "TechWorkingOnSite");
      await statusEvent("workorder.status_update", "TechWorkingOnSite", "WorkIncompleteWithReason");
      expect(await t.db.webhookDelivery.count({ where: { endpointId: coolcoHook, status: "pending" } })).toBe(0); // not heard straight from TechWorkingOnSite
      await statusEvent("workorder.status_update", "WorkIncompleteWithReason", "TechScheduled");
      expect(await t.db.webhookDelivery.count({ where: { endpointId: coolcoHook, status: "pending" } })).toBe(1);
    },
  );
});

describe("webhooks delete", () => {
  it("removes the endpoint with its delivery log and forgets its fixture ref", SPAWNS, async () => {
    const before = await t.db.webhookDelivery.count({ where: { endpointId: coolcoHook } });
    expect(before).toBeGreaterThan(0);
    const deleted = await cli(["webhooks", "delete", String(coolcoHook)]);
    expect(ok(deleted)).toEqual({ id: coolcoHook, deleted: true, deliveriesDeleted: before });
    expect(await t.db.webhookEndpoint.findUnique({ where: { id: coolcoHook } })).toBeNull();
    expect(await t.db.webhookDelivery.count({ where: { endpointId: coolcoHook } })).toBe(0);
    expect(await t.db.operatorRef.findMany({ where: { ref: "coolco-hook" } })).toEqual([]);
    expect(await t.db.webhookEndpoint.count({ where: { id: acmeHook } })).toBe(1);
    await expect(deleteEndpoint(t.db, 999_999)).rejects.toThrow("no webhook endpoint 999999");
  });
});

describe("npm run -s operator", () => {
  it("prints only the command's JSON on stdout, so it pipes into jq", SPAWNS, async () => {
    const run = await new Promise<Run>((resolve) => {
      execFile(
        "npm",
        ["run", "-s", "operator", "--", "webhooks", "list", "--buyer-company", String(t.fixture.refs.acme)],
        {
          cwd: ROOT,
          env: { ...process.env, DATABASE_URL: t.databaseUrl },
          timeout: 180_000,
        },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).map((e: { id: number }) => e.id)).toEqual([acmeHook, createOnlyHook]);
  });
});
