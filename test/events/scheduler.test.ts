// The durable schedule with an injected clock: each delivery's next attempt time and lease are its
// row's (PostgreSQL), the retry schedule of docs/decisions.md#webhooks, the three-hour rule applied by the sweep
// whether or not an attempt runs, leases that run out, replays that restart the schedule, and mail's
// backoff. No worker runs in this file: the test drives the claims and attempts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  claimDeliveries,
  createDeliverer,
  expireOverdue,
  type ClaimedDelivery,
} from "../../src/schema/webhooks/jobs/delivery.ts";
import { redeliverWebhook } from "../../src/schema/webhooks/rules/replay.ts";
import { claimMail, MAIL_ATTEMPTS, recordMailAttempt } from "../../src/schema/mail/rules.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { startReceiver } from "../support/receiver.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const T0 = new Date("2026-11-02T12:00:00.000Z").getTime();

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let clock = T0;
const now = () => new Date(clock);
let deliverer: ReturnType<typeof createDeliverer>;
let endpointId: number;
let next = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestApp(); // the API role only: nothing claims but the test
  endpointId = t.fixture.webhooks["acme-hook"].id;
  await t.db.webhookEndpoint.update({ where: { id: endpointId }, data: { url: `${receiver.base}/hook` } });
  deliverer = createDeliverer({ db: t.db, now, allowInsecureUrls: true, leaseMs: MINUTE });
});
afterAll(async () => {
  await deliverer?.close();
  await t?.close();
  await receiver?.close();
});
beforeEach(async () => {
  clock = T0;
  receiver.state.failing = true;
  await t.db.webhookAttempt.deleteMany();
  await t.db.webhookDelivery.deleteMany();
});

/** A delivery of a change at `eventAt`, due then. */
async function delivery(eventAt = new Date(T0)) {
  next++;
  return t.db.webhookDelivery.create({
    data: {
      eventId: BigInt(next),
      endpointId,
      webhookId: `msg_${next}_${endpointId}_0`,
      eventType: "workorder.status_update",
      body: `{"n":${next}}`,
      eventAt,
      nextAttemptAt: eventAt,
    },
  });
}

const claim = (limit = 10) => deliverer.claim(limit);
const row = (id: number) => t.db.webhookDelivery.findUniqueOrThrow({ where: { id } });

describe("the retry schedule", () => {
  it("keeps the next attempt in the row: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then expired past three hours", async () => {
    const d = await delivery();
    const waits = [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, HOUR];
    for (const [i, wait] of waits.entries()) {
      const [claimed] = await claim();
      expect(claimed?.id, `attempt ${i + 1}`).toBe(d.id);
      expect(await deliverer.attempt(claimed)).toBe("retry");
      expect((await row(d.id)).nextAttemptAt).toEqual(new Date(clock + wait));
      // Not due a millisecond early, due on the dot.
      clock += wait - 1;
      expect(await claim()).toEqual([]);
      clock += 1;
    }
    // 2 h 42 min 35 s after the change: the next retry (an hour on) would fall past the window.
    expect(clock - T0).toBe(2 * HOUR + 42 * MINUTE + 35 * SECOND);
    const [last] = await claim();
    expect(await deliverer.attempt(last)).toBe("expired");
    expect(await row(d.id)).toMatchObject({ status: "expired", attempts: 8, nextAttemptAt: null, leaseUntil: null });
    expect(receiver.receipts.filter((r) => r.headers["webhook-id"] === d.webhookId)).toHaveLength(8);
  });

  it("records a delivered attempt with no next attempt", async () => {
    receiver.state.failing = false;
    const d = await delivery();
    const [claimed] = await claim();
    expect(await deliverer.attempt(claimed)).toBe("delivered");
    expect(await row(d.id)).toMatchObject({
      status: "delivered",
      attempts: 1,
      nextAttemptAt: null,
      leaseUntil: null,
      deliveredAt: now(),
    });
    clock += 10 * HOUR;
    expect(await claim()).toEqual([]);
  });
});

describe("leases", () => {
  it("hold a claimed delivery until they run out; then it is due again, and the late record of the old claim is dropped", async () => {
    const d = await delivery();
    const [first] = await claim();
    expect(first.leaseUntil).toEqual(new Date(T0 + MINUTE));
    clock += MINUTE - 1;
    expect(await claim()).toEqual([]); // held
    clock += 1;
    const [second] = await claim(); // the first worker died mid-attempt
    expect(second.id).toBe(d.id);
    receiver.state.failing = false;
    expect(await deliverer.attempt(second)).toBe("delivered");
    // The dead worker's attempt, recorded late, changes nothing.
    receiver.state.failing = true;
    await deliverer.attempt(first);
    expect(await row(d.id)).toMatchObject({ status: "delivered", attempts: 1 });
    expect(await t.db.webhookAttempt.count({ where: { deliveryId: d.id } })).toBe(1);
  });

  it("let any number of claimers share the due deliveries without taking one twice", async () => {
    const ids = new Set((await Promise.all(Array.from({ length: 30 }, () => delivery()))).map((d) => d.id));
    const claims = await Promise.all(
      Array.from({ length: 6 }, () => claimDeliveries(t.db, now(), 7, new Date(clock + MINUTE))),
    );
    const taken = claims.flat().map((c: ClaimedDelivery) => c.id);
    expect(taken).toHaveLength(30);
    expect(new Set(taken)).toEqual(ids);
  });
});

describe("the three-hour rule", () => {
  it("expires a never-attempted delivery on time, whether or not an attempt runs", async () => {
    const old = await delivery();
    const recent = await delivery(new Date(T0 + HOUR));
    clock = T0 + 3 * HOUR;
    expect(await expireOverdue(t.db, now())).toBe(0);
    clock += 1;
    expect(await expireOverdue(t.db, now())).toBe(1);
    expect(await row(old.id)).toMatchObject({ status: "expired", attempts: 0, nextAttemptAt: null });
    expect(await row(recent.id)).toMatchObject({ status: "pending" });
    expect(receiver.receipts.filter((r) => r.headers["webhook-id"] === old.webhookId)).toHaveLength(0);
  });

  it("expires at attempt time too: a delivery claimed past its window is never sent", async () => {
    const d = await delivery();
    clock = T0 + 3 * HOUR + SECOND;
    const [claimed] = await claim();
    expect(await deliverer.attempt(claimed)).toBe("expired");
    expect(await row(d.id)).toMatchObject({ status: "expired", attempts: 0 });
    expect(receiver.receipts.filter((r) => r.headers["webhook-id"] === d.webhookId)).toHaveLength(0);
  });

  it("lets an attempt in flight at the deadline record its outcome", async () => {
    receiver.state.failing = false;
    const d = await delivery();
    clock = T0 + 3 * HOUR - SECOND;
    const [claimed] = await claim();
    clock = T0 + 3 * HOUR + SECOND;
    expect(await expireOverdue(t.db, now())).toBe(1); // the sweep runs while the attempt is out
    expect(await deliverer.attempt({ ...claimed, eventAt: new Date(clock - 3 * HOUR + 2 * SECOND) })).toBe("delivered");
    expect(await row(d.id)).toMatchObject({ status: "delivered", attempts: 1, nextAttemptAt: null });
  });
});

describe("replays", () => {
  it("make a delivery due at once with the retry schedule started afresh; a delivery held by an attempt is 409", async () => {
    const d = await delivery();
    for (const wait of [0, 5 * SECOND, 30 * SECOND]) {
      clock += wait;
      await deliverer.attempt((await claim())[0]);
    }
    expect(await row(d.id)).toMatchObject({ attempts: 3, nextAttemptAt: new Date(clock + 2 * MINUTE) });
    clock += 2 * MINUTE;
    const [held] = await claim();
    await expect(redeliverWebhook({ db: t.db, now }, d.webhookId, { reader: "operator" })).rejects.toMatchObject({
      status: 409,
    });
    await deliverer.attempt(held); // attempt 4; the next would be 10 min on
    clock += MINUTE;
    const replayed = await redeliverWebhook({ db: t.db, now }, d.webhookId, { reader: "operator" });
    expect(replayed).toMatchObject({ status: "pending", attempts: 4, retriesFrom: 4, nextAttemptAt: now() });
    await deliverer.attempt((await claim())[0]);
    // Failed again: the first retry of a fresh schedule, 5 s.
    expect(await row(d.id)).toMatchObject({ attempts: 5, nextAttemptAt: new Date(clock + 5 * SECOND) });
  });
});

describe("mail", () => {
  it("keeps its backoff in the row and gives up after the last attempt", async () => {
    await t.db.mailOutbox.deleteMany();
    const mail = await t.db.mailOutbox.create({
      data: {
        jobId: "scheduler-test",
        message: { to: "x@example.com", subject: "s", text: "t" },
        nextAttemptAt: now(),
      },
    });
    const delay = 1_000;
    for (let attempt = 1; attempt <= MAIL_ATTEMPTS; attempt++) {
      const [claimed] = await claimMail(t.db, now(), 5, new Date(clock + MINUTE));
      expect(claimed?.id, `attempt ${attempt}`).toBe(mail.id);
      const outcome = await recordMailAttempt(t.db, claimed, now(), "421 try later", delay);
      const stored = await t.db.mailOutbox.findUniqueOrThrow({ where: { id: mail.id } });
      if (attempt < MAIL_ATTEMPTS) {
        expect(outcome).toBe("retry");
        const wait = delay * 2 ** (attempt - 1);
        expect(stored).toMatchObject({
          status: "pending",
          attempts: attempt,
          nextAttemptAt: new Date(clock + wait),
          lastError: "421 try later",
        });
        clock += wait;
      } else {
        expect(outcome).toBe("failed");
        expect(stored).toMatchObject({ status: "failed", attempts: MAIL_ATTEMPTS, nextAttemptAt: null });
      }
    }
    clock += 10 * HOUR;
    expect(await claimMail(t.db, now(), 5, new Date(clock + MINUTE))).toEqual([]);
  });
});
