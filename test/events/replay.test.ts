// The delivery log and replays: GraphQL for integrators (scoped to their own endpoints, inside the
// three-hour window) and the operator CLI (any endpoint, --force past the window). A real receiver.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeEvent } from "../../src/schema/work-orders/events.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { operatorCli } from "../support/operator-cli.ts";
import { startReceiver } from "../support/receiver.ts";
import { sleep, waitFor } from "../support/wait.ts";
import { acmeWorkOrder, confirmed, context, note } from "../support/work-order-events.ts";

const HOUR = 3_600_000;

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let refs: Record<string, number>;
let workOrderId = 0;
let endpoints: { acme: number; coolco: number; globex: number };

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestApp({
    configure: (c) => {
      c.roles.worker = true;
      c.webhookAllowInsecureUrls = true;
      c.webhookRetryScale = 0.002; // 5 s → 10 ms …
      c.relayIntervalMs = 20;
    },
  });
  refs = t.fixture.refs;
  await t.db.webhookEndpoint.update({
    where: { id: t.fixture.webhooks["acme-hook"].id },
    data: { url: `${receiver.base}/acme` },
  });
  await t.db.webhookEndpoint.update({
    where: { id: t.fixture.webhooks["coolco-hook"].id },
    data: { url: `${receiver.base}/coolco` },
  });
  const globex = await t.db.webhookEndpoint.create({
    data: {
      buyerCompanyId: refs.globex,
      url: `${receiver.base}/globex`,
      events: ["workorder.create", "workorder.status_update", "workorder.new_note"],
      secret: "whsec_Z2xvYmV4LXNlY3JldC1mb3ItdGVzdHM=",
    },
  });
  endpoints = {
    acme: t.fixture.webhooks["acme-hook"].id,
    coolco: t.fixture.webhooks["coolco-hook"].id,
    globex: globex.id,
  };
  workOrderId = (await acmeWorkOrder(t)).id;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** Writes an event whose change happened `ageMs` ago (backdated before commit: the relay only ever sees it old). */
async function eventAged(
  ageMs: number,
  overrides: Parameters<typeof context>[2] = { supplierFacilityId: null },
  text?: string,
) {
  return t.db.$transaction(async (tx) => {
    if (text) await writeEvent(tx, "workorder.new_note", context(t, workOrderId, overrides), note(text));
    else await writeEvent(tx, "workorder.status_update", context(t, workOrderId, overrides), confirmed());
    const row = await tx.outboxEvent.findFirstOrThrow({ orderBy: { id: "desc" } });
    return tx.outboxEvent.update({ where: { id: row.id }, data: { createdAt: new Date(Date.now() - ageMs) } });
  });
}

const deliveryOf = (eventId: bigint, endpointId: number) =>
  waitFor(() =>
    t.db.webhookDelivery.findFirst({
      where: { eventId, endpointId },
      include: { attemptLog: { orderBy: { attempt: "asc" } } },
    }),
  );

/** A delivery to acme's endpoint that failed three times and was given up (expired): the change is 2 h 58 min old. */
async function givenUpDelivery() {
  receiver.state.failing = true;
  const event = await eventAged(3 * HOUR - 2 * 60_000);
  const { webhookId } = await deliveryOf(event.id, endpoints.acme);
  const expired = await waitFor(
    () => t.db.webhookDelivery.findFirst({ where: { webhookId, status: "expired" } }),
    10_000,
    "the delivery to be given up",
  );
  receiver.state.failing = false;
  return expired;
}

const REDELIVER = `mutation($id: String!) { redeliverWebhook(webhookId: $id) { webhookId status attemptCount attempts { attempt statusCode } } }`;

const cli = (args: string[]) =>
  operatorCli(t.databaseUrl, args, { env: { REDIS_URL: t.config.redisUrl, REDIS_PREFIX: t.config.redisPrefix } });

describe("redeliverWebhook", () => {
  it("resends a given-up delivery with the same webhook-id and body, continuing its attempt log", async () => {
    const given = await givenUpDelivery();
    expect(given.attempts).toBe(3);
    expect(given).toMatchObject({ nextAttemptAt: null, leaseUntil: null });
    const failedBodies = receiver.receipts
      .filter((r) => r.headers["webhook-id"] === given.webhookId)
      .map((r) => r.body);
    expect(failedBodies).toHaveLength(3);

    const reply = await t.graphql("acme-key", REDELIVER, { id: given.webhookId });
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.redeliverWebhook).toMatchObject({
      webhookId: given.webhookId,
      status: "pending",
      attemptCount: 3,
    });

    const [receipt] = await waitFor(
      () => receiver.delivered(given.webhookId).length > 0 && receiver.delivered(given.webhookId),
    );
    expect(receipt.body).toBe(failedBodies[0]);
    const after = await waitFor(() =>
      t.db.webhookDelivery.findFirst({
        where: { webhookId: given.webhookId, status: "delivered" },
        include: { attemptLog: { orderBy: { attempt: "asc" } } },
      }),
    );
    expect(after.attemptLog.map((a) => [a.attempt, a.statusCode])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
      [4, 204],
    ]);
    expect(after.eventAt).toEqual(given.eventAt); // a replay does not reopen the three-hour window
    await sleep(150);
    expect(receiver.delivered(given.webhookId)).toHaveLength(1);
  });

  it("refuses a delivery whose change is more than three hours old; the operator can force it", {
    timeout: 90_000,
  }, async () => {
    const event = await eventAged(3 * HOUR + 1_000);
    const expired = await waitFor(() =>
      t.db.webhookDelivery.findFirst({ where: { eventId: event.id, endpointId: endpoints.acme, status: "expired" } }),
    );
    expect(expired.attempts).toBe(0);

    const [refused, plain] = await Promise.all([
      t.graphql("acme-key", REDELIVER, { id: expired.webhookId }),
      cli(["webhooks", "redeliver", expired.webhookId]),
    ]);
    expect(refused.body.errors[0].extensions.code).toBe("invalidInputDataException");
    expect(refused.body.errors[0].message).toContain("three-hour window");
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain("three-hour window");
    expect(await t.db.webhookDelivery.findUniqueOrThrow({ where: { id: expired.id } })).toMatchObject({
      status: "expired",
      nextAttemptAt: null,
    });

    const forced = await cli(["webhooks", "redeliver", expired.webhookId, "--force"]);
    expect(forced.stderr).toBe("");
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ webhookId: expired.webhookId, status: "pending" });
    const [receipt] = await waitFor(
      () => receiver.delivered(expired.webhookId).length > 0 && receiver.delivered(expired.webhookId),
    );
    expect(JSON.parse(receipt.body).data.changedAt).toBe(JSON.parse(expired.body).data.changedAt);
    const after = await waitFor(() =>
      t.db.webhookDelivery.findFirst({ where: { id: expired.id, status: "delivered" } }),
    );
    expect(Date.now() - after.eventAt.getTime()).toBeLessThan(60_000); // a fresh window, from the forced replay

    const log = await cli([
      "webhooks",
      "deliveries",
      String(endpoints.acme),
      "--status",
      "delivered",
      "--since",
      new Date(Date.now() - 4 * HOUR).toISOString(),
    ]);
    expect(log.code).toBe(0);
    const listed = JSON.parse(log.stdout) as {
      count: number;
      data: { webhookId: string; attempts: { statusCode: number }[] }[];
    };
    expect(listed.data.find((d) => d.webhookId === expired.webhookId)?.attempts.map((a) => a.statusCode)).toEqual([
      204,
    ]);
    expect(listed.data.every((d) => d.webhookId.startsWith("msg_"))).toBe(true);
  });

  it("answers 404 for an unknown webhook-id and 400 for another tenant's, changing nothing", async () => {
    const given = await givenUpDelivery();
    const unknown = await t.graphql("acme-key", REDELIVER, { id: "msg_0_0_0" });
    expect(unknown.body.errors[0].extensions.code).toBe("NotFoundException");
    for (const key of ["globex-key", "coolco-key"]) {
      const foreign = await t.graphql(key, REDELIVER, { id: given.webhookId });
      expect(foreign.body.errors[0].extensions.code).toBe("invalidInputDataException");
    }
    await sleep(200);
    expect(await t.db.webhookDelivery.findUniqueOrThrow({ where: { id: given.id } })).toMatchObject({
      status: "expired",
      attempts: 3,
    });
    expect(receiver.delivered(given.webhookId)).toHaveLength(0);
  });
});

describe("redeliverFailures", () => {
  it("resends an endpoint's failures since a time, and nothing that was delivered", async () => {
    const since = new Date(Date.now() - 3 * HOUR);
    const ok = await eventAged(3 * HOUR - 2 * 60_000, { supplierFacilityId: null }, "delivered fine");
    const okDelivery = await waitFor(() =>
      t.db.webhookDelivery.findFirst({ where: { eventId: ok.id, endpointId: endpoints.acme, status: "delivered" } }),
    );
    const failed = [await givenUpDelivery(), await givenUpDelivery()];

    const reply = await t.graphql(
      "acme-key",
      `mutation($e: Int!, $s: DateTime!) { redeliverFailures(endpointId: $e, since: $s) { endpointId redelivered skipped { webhookId reason } more } }`,
      { e: endpoints.acme, s: since.toISOString() },
    );
    expect(reply.body.errors).toBeUndefined();
    const result = reply.body.data.redeliverFailures;
    for (const f of failed) expect(result.redelivered).toContain(f.webhookId);
    expect(result.redelivered).not.toContain(okDelivery.webhookId);
    expect(result.more).toBe(false);
    for (const f of failed) await waitFor(() => receiver.delivered(f.webhookId).length === 1);
    await sleep(150);
    expect(receiver.delivered(okDelivery.webhookId)).toHaveLength(1);

    const foreign = await t.graphql(
      "globex-key",
      `mutation($e: Int!, $s: DateTime!) { redeliverFailures(endpointId: $e, since: $s) { redelivered } }`,
      { e: endpoints.acme, s: since.toISOString() },
    );
    expect(foreign.body.errors[0].extensions.code).toBe("invalidInputDataException");
  });
});

describe("webhookDeliveries", () => {
  const LOG = `query($e: Int, $s: WebhookDeliveryStatus, $since: DateTime, $limit: Int, $offset: Int) {
    webhookDeliveries(endpointId: $e, status: $s, since: $since, limit: $limit, offset: $offset) {
      count data { webhookId endpointId eventType workOrderId status attemptCount payload attempts { attempt statusCode latencyMs error at } }
    }
  }`;

  it("shows each key only its own endpoints' deliveries, with their attempts", async () => {
    await t.db.$transaction(async (tx) => {
      await writeEvent(tx, "workorder.status_update", context(t, workOrderId), confirmed()); // acme + coolco-pdx
      await writeEvent(
        tx,
        "workorder.new_note",
        {
          ...context(t, workOrderId),
          buyerCompanyId: refs.globex,
          customer: "Globex Retail",
          supplierFacilityId: null,
        },
        note("Globex only"),
      );
    });
    await waitFor(
      async () =>
        (await t.db.webhookDelivery.count({ where: { endpointId: endpoints.globex, status: "delivered" } })) > 0,
    );
    const all = await t.db.webhookDelivery.findMany();
    const owned = (id: number) => all.filter((d) => d.endpointId === id).length;

    const acme = (await t.graphql("acme-key", LOG, { limit: 100 })).body.data.webhookDeliveries;
    expect(acme.count).toBe(owned(endpoints.acme));
    expect(new Set(acme.data.map((d: { endpointId: number }) => d.endpointId))).toEqual(new Set([endpoints.acme]));
    const globex = (await t.graphql("globex-key", LOG, {})).body.data.webhookDeliveries;
    expect(globex.count).toBe(owned(endpoints.globex));
    expect(globex.data.every((d: { endpointId: number }) => d.endpointId === endpoints.globex)).toBe(true);
    expect(globex.data[0]).toMatchObject({
      eventType: "workorder.new_note",
      status: "delivered",
      attemptCount: 1,
      payload: { event_type: "workorder.new_note", data: { newNote: "Globex only" } },
    });
    expect(globex.data[0].attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: 204, error: null })]);
    // A filter cannot widen the scope.
    const peek = (await t.graphql("globex-key", LOG, { e: endpoints.acme })).body.data.webhookDeliveries;
    expect(peek).toEqual({ count: 0, data: [] });
    const supplier = (await t.graphql("coolco-key", LOG, { limit: 100 })).body.data.webhookDeliveries;
    expect(supplier.count).toBe(owned(endpoints.coolco));
    expect(supplier.count).toBeGreaterThan(0);
    expect(
      supplier.data.every(
        (d: { endpointId: number; payload: { data: { customer: string } } }) =>
          d.endpointId === endpoints.coolco && d.payload.data.customer === "Acme Foods",
      ),
    ).toBe(true);
    const partner = await t.graphql("inhouse-partner-key", LOG, {});
    expect(partner.body.errors[0].extensions.code).toBe("ForbiddenException");
  });

  it("filters by status and time and pages newest first", async () => {
    const old = await eventAged(3 * HOUR + 1_000);
    await waitFor(() => t.db.webhookDelivery.findFirst({ where: { eventId: old.id, status: "expired" } }));
    const expired = (await t.graphql("acme-key", LOG, { s: "expired", limit: 100 })).body.data.webhookDeliveries;
    expect(expired.count).toBe(
      await t.db.webhookDelivery.count({ where: { endpointId: endpoints.acme, status: "expired" } }),
    );
    expect(expired.count).toBeGreaterThan(0);
    expect(expired.data.every((d: { status: string }) => d.status === "expired")).toBe(true);
    const recent = (
      await t.graphql("acme-key", LOG, { since: new Date(Date.now() - 60 * 60_000).toISOString(), limit: 100 })
    ).body.data.webhookDeliveries;
    expect(recent.count).toBe(
      await t.db.webhookDelivery.count({
        where: { endpointId: endpoints.acme, eventAt: { gte: new Date(Date.now() - 60 * 60_000) } },
      }),
    );
    const first = (await t.graphql("acme-key", LOG, { limit: 2 })).body.data.webhookDeliveries;
    const second = (await t.graphql("acme-key", LOG, { limit: 2, offset: 2 })).body.data.webhookDeliveries;
    const ordered = await t.db.webhookDelivery.findMany({
      where: { endpointId: endpoints.acme },
      orderBy: [{ eventAt: "desc" }, { id: "desc" }],
      take: 4,
    });
    expect([...first.data, ...second.data].map((d: { webhookId: string }) => d.webhookId)).toEqual(
      ordered.map((d) => d.webhookId),
    );
    const tooMany = await t.graphql("acme-key", LOG, { limit: 0 });
    expect(tooMany.body.errors[0].extensions.code).toBe("invalidInputDataException");
  });
});
