// The outbox relay is woken by the commit of an event (the writer announces it on `outbox_event` after
// its commit, work-orders/events.ts; webhooks/jobs/start.ts listens), not by its poll. The worker here
// polls once a minute, so a delivery within seconds can only come from the announcement; after its
// listening connection is killed it listens again and looks for what it was not told of. An event rolled
// back is not announced, and a writer's commit sends no NOTIFY of its own (it would serialize commits).
import http from "node:http";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { sleep, waitFor } from "../support/wait.ts";
import { acmeWorkOrder, context } from "../support/work-order-events.ts";
import { writeEvent } from "../../src/schema/work-orders/events.ts";
import { inTransaction } from "../../src/schema/core/transaction.ts";

const POLL_MS = 60_000;
/** Far below the poll: only a wake-up on commit delivers within it. */
const WITHIN_MS = 5_000;

let t: TestApp;
let receiver: http.Server;
let received: string[] = [];
let workOrderId = 0;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  t = await startTestApp({
    configure: (c) => {
      c.roles.worker = true;
      c.webhookAllowInsecureUrls = true;
      c.relayIntervalMs = POLL_MS;
    },
  });
  const port = (receiver.address() as { port: number }).port;
  await t.db.webhookEndpoint.updateMany({ data: { url: `http://127.0.0.1:${port}/hook` } });
  const wo = await acmeWorkOrder(t, { status: "PendingConfirmationByServiceProvider" });
  workOrderId = wo.id;
  // The worker's first rounds (at start) are over once its listening connection is up.
  await waitFor(() => listeners().then((n) => n === 1), 10_000, "the relay's listening connection");
});
afterAll(async () => {
  await t?.close();
  receiver?.close();
});

async function listeners(): Promise<number> {
  const [{ n }] = await t.db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND application_name = 'work-orders outbox relay'`;
  return n;
}

/** Commits one status event and waits for both endpoints' deliveries of it. */
/** The work order's confirmation by `changedBy`, as an event written in `tx`. */
const statusEvent = (tx: Parameters<typeof writeEvent>[0], changedBy: string) =>
  writeEvent(tx, "workorder.status_update", context(t, workOrderId), {
    oldStatus: "PendingConfirmationByServiceProvider",
    newStatus: "ConfirmedByServiceProvider",
    changedBy,
    changedAt: new Date().toISOString(),
    action: "confirm",
  });

async function commitAndReceive(changedBy: string): Promise<void> {
  received = [];
  await inTransaction(t.db, (tx) => statusEvent(tx, changedBy));
  await waitFor(
    () => received.filter((body) => body.includes(changedBy)).length >= 2,
    WITHIN_MS,
    `the deliveries of ${changedBy}'s event`,
  );
}

describe("the outbox relay's wake-up on commit", () => {
  it("delivers a committed event within seconds while the relay polls once a minute", async () => {
    await commitAndReceive("First Tech");
    await commitAndReceive("Second Tech");
  });

  it("listens again after its connection is killed, and looks for events committed meanwhile", async () => {
    const lost = () => t.logs.some((l) => String(l.msg).startsWith("outbox relay") && String(l.msg).includes("lost"));
    expect(lost()).toBe(false);
    await t.db.$executeRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'work-orders outbox relay'`;
    await waitFor(lost, 5_000, "the relay to see its connection lost");
    // Committed while it reconnects (its first retry is 250 ms away): found by the round it runs once listening.
    await commitAndReceive("Third Tech");
    await waitFor(() => listeners().then((n) => n === 1), 10_000, "the relay listening again");
    await commitAndReceive("Fourth Tech");
  });
});

describe("the announcement", () => {
  /** Notifications on the relay's channel, heard by a connection of the test's own, with what was visible then. */
  async function listening() {
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    const heard: number[] = [];
    client.on("notification", () => {
      // The events visible to another session when the announcement arrived.
      void t.db.outboxEvent.count().then((n) => heard.push(n));
    });
    await client.query("LISTEN outbox_event");
    return { heard, close: () => client.end() };
  }
  it("comes after the commit, with the event visible; none for a rollback or an insert of the outbox's own", async () => {
    const listener = await listening();
    try {
      const before = await t.db.outboxEvent.count();
      await expect(
        inTransaction(t.db, async (tx) => {
          await statusEvent(tx, "Rolled Back");
          throw new Error("rolled back on purpose");
        }),
      ).rejects.toThrow("rolled back on purpose");
      // Written by hand, as a trigger would have seen it: no announcement (the writer sends it, not the table).
      await t.db.$executeRaw`INSERT INTO "OutboxEvent" ("eventType", "workOrderId", "buyerCompanyId", payload)
        SELECT "eventType", "workOrderId", "buyerCompanyId", payload FROM "OutboxEvent" ORDER BY id DESC LIMIT 1`;
      await sleep(500);
      expect(listener.heard).toEqual([]);
      await inTransaction(t.db, (tx) => statusEvent(tx, "Announced"));
      await waitFor(() => listener.heard.length > 0, 5_000, "the announcement");
      expect(listener.heard[0]).toBe(before + 2);
    } finally {
      await listener.close();
    }
  });
});
