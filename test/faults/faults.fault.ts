// `npm run test:faults`: nothing lost, nothing crashes, with faults injected into a running API and
// worker (child processes) on the suite's own redis-server and database. Each scenario reports events
// produced, distinct deliveries, duplicates and lost, and fails when anything is lost or a process exits
// by itself. The table is printed at the end (and written as JSON).
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { relayOutbox } from "../../src/schema/webhooks/jobs/relay.ts";
import { sleep, waitFor } from "../support/wait.ts";
import { install, printReport, produceEvents, tally, type Installation, type ScenarioReport } from "./harness.ts";

let i: Installation;
const reports: ScenarioReport[] = [];

beforeAll(async () => {
  // Retries 5× sooner than in production (1 s, 6 s, 24 s …) so a scenario with failing receivers ends in seconds.
  i = await install({ WEBHOOK_RETRY_SCALE: "0.2" });
  i.api.start();
  i.worker.start();
  await Promise.all([i.api.ready(), i.worker.ready()]);
}, 120_000);
afterAll(async () => {
  printReport(reports);
  await i?.close();
});

/** Runs a scenario and records its line of the report; fails on anything lost or any process that exited by itself. */
async function scenario(name: string, run: () => Promise<{ workOrderIds: number[]; notes?: string }>) {
  const started = Date.now();
  const exitsBefore = [i.api, i.worker, i.redis].map((p) => p.unexpectedExits.length);
  let outcome: Awaited<ReturnType<typeof run>>;
  try {
    outcome = await run();
  } catch (error) {
    // What the processes said last, to see why.
    const state = [i.api, i.worker, i.redis].map(
      (p) =>
        `--- ${p.name} (${p.running ? "running" : "not running"}; unexpected exits: ${p.unexpectedExits.join("\n") || "none"})\n${p.log.slice(-1500)}`,
    );
    throw new Error(`${(error as Error).message}\n${state.join("\n")}`);
  }
  const { workOrderIds, notes = "" } = outcome;
  const counted = tally(i.receiver, workOrderIds);
  const unexpectedExits = [i.api, i.worker, i.redis].flatMap((p, n) => p.unexpectedExits.slice(exitsBefore[n]));
  reports.push({
    scenario: name,
    events: workOrderIds.length,
    ...counted,
    unexpectedExits,
    seconds: Math.round((Date.now() - started) / 1000),
    notes,
  });
  expect(unexpectedExits).toEqual([]);
  expect(counted.missing.slice(0, 10)).toEqual([]);
  expect(counted.lost).toBe(0);
}

const allArrived = (ids: number[], ms: number, what: string) =>
  waitFor(() => tally(i.receiver, ids).lost === 0, ms, what);

describe("fault injection", () => {
  it("worker kill -9 mid-burst", async () => {
    await scenario("worker kill -9 mid-burst, restarted", async () => {
      const ids = await produceEvents(i, 2_000);
      await waitFor(() => tally(i.receiver, ids).distinct >= 1_000, 60_000, "a third of the burst");
      await i.worker.kill("SIGKILL");
      await sleep(1_000);
      await i.worker.restart();
      // Deliveries the dead worker held come back when their lease (WORK_LEASE_MS = 15 s) runs out.
      await allArrived(ids, 90_000, "every delivery after the restart");
      return { workOrderIds: ids, notes: "held deliveries retried after the 15 s lease" };
    });
  }, 180_000);

  it("Redis killed and restarted empty, with deliveries waiting for retries and never attempted", async () => {
    // The receiver fails on purpose here; set right again whatever happens, or the next scenarios fail too.
    onTestFinished(() => {
      i.receiver.state.failing = false;
    });
    await scenario("Redis kill -9, restarted empty (retry-waiting + never attempted)", async () => {
      // 300 events whose deliveries all failed once and wait for their retry…
      i.receiver.state.failing = true;
      const retrying = await produceEvents(i, 300);
      await waitFor(
        async () =>
          (await i.db.webhookDelivery.count({
            where: {
              eventId: { gte: 0 },
              attempts: { gte: 1 },
              status: "pending",
              body: { contains: `"workOrderId":${retrying.at(-1)}` },
            },
          })) === 2,
        30_000,
        "the first failures",
      );
      await waitFor(
        async () => (await i.db.webhookDelivery.count({ where: { status: "pending", attempts: 0 } })) === 0,
        30_000,
        "every delivery attempted once",
      );
      // …and 300 more relayed into deliveries by a worker that died before attempting any.
      await i.worker.kill("SIGKILL");
      const neverAttempted = await produceEvents(i, 300);
      while ((await relayOutbox({ db: i.db, now: () => new Date() })).events > 0);
      // What is waiting when Redis dies: all 1,200, none of them anywhere but in PostgreSQL. Counted by
      // this scenario's events: the previous scenario's killed worker may still hold leased deliveries.
      const events = await i.db.outboxEvent.findMany({
        where: { workOrderId: { in: [...retrying, ...neverAttempted] } },
        select: { id: true },
      });
      const waiting = await i.db.webhookDelivery.groupBy({
        by: ["attempts"],
        where: { status: "pending", eventId: { in: events.map((e) => e.id) } },
        _count: true,
      });
      const retryWaiting = waiting.filter((w) => w.attempts > 0).reduce((n, w) => n + w._count, 0);
      const untried = waiting.find((w) => w.attempts === 0)?._count ?? 0;
      expect(retryWaiting + untried).toBe((retrying.length + neverAttempted.length) * 2);
      // Redis dies and comes back empty; the API keeps taking writes meanwhile.
      await i.redis.kill("SIGKILL");
      const during = await fetch(`http://127.0.0.1:${i.api.port}/v1/buyer/asset/asset_types`, {
        method: "POST",
        headers: { ...headersOf(i, "faults-key"), "content-type": "application/json" },
        body: JSON.stringify({ name: "Written while Redis is down" }),
      });
      expect(during.status).toBe(200);
      i.redis.start();
      await i.redis.ready();
      i.receiver.state.failing = false;
      await i.worker.restart();
      const ids = [...retrying, ...neverAttempted];
      await allArrived(ids, 90_000, "every delivery after Redis came back empty");
      return {
        workOrderIds: ids,
        notes: `at the kill: ${retryWaiting} waiting for a retry, ${untried} never attempted; API write during the outage: ${during.status}`,
      };
    });
  }, 180_000);

  it("PostgreSQL terminates the service's connections (pg_terminate_backend) during a burst", async () => {
    await scenario("pg_terminate_backend every 300 ms for 6 s during a burst", async () => {
      let terminations = 0;
      let terminated = 0;
      const ids = await produceEvents(i, 2_000);
      const statuses: Record<number, number> = {};
      const until = Date.now() + 6_000;
      const writes = (async () => {
        while (Date.now() < until) {
          const r = await fetch(`http://127.0.0.1:${i.api.port}/v1/buyer/location/locations`, {
            headers: headersOf(i, "faults-key"),
          }).catch(() => undefined);
          if (r) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          await r?.arrayBuffer();
        }
      })();
      while (Date.now() < until) {
        // Only this suite's database: the shared server is never touched otherwise.
        const { rows } = await i.admin.query<{ n: number }>(
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        );
        terminations++;
        terminated += rows[0].n;
        await sleep(300);
      }
      await writes;
      await allArrived(ids, 90_000, "every delivery after the terminations");
      expect(statuses[500] ?? 0).toBe(0);
      return {
        workOrderIds: ids,
        notes: `${terminated} connections ended in ${terminations} rounds; API answers meanwhile: ${JSON.stringify(statuses)}`,
      };
    });
  }, 180_000);

  it("API kill -9 during writes, with the client retrying idempotently", async () => {
    await scenario("API kill -9 during 300 creates, client retries with Idempotency-Key", async () => {
      const { refs } = i.fixture;
      const base = `http://127.0.0.1:${i.api.port}`;
      const N = 300;
      let retries = 0;
      let next = 0;
      const runId = Date.now();
      const create = async (n: number) => {
        const key = `faults-${runId}-${n}`;
        const body = JSON.stringify({
          title: `Fault create ${runId}-${n}`,
          locationId: refs["store-1"],
          problemTypeId: refs.hvac,
          buyerFacilityId: refs["acme-hq"],
          buyerCompanyId: refs.acme,
          createdBy: "alice@acme.example",
          supplierFacilityId: refs["coolco-pdx"],
        });
        for (;;) {
          const reply = await fetch(`${base}/v1/buyer/work_order/work_orders`, {
            method: "POST",
            headers: { ...headersOf(i, "faults-key"), "content-type": "application/json", "Idempotency-Key": key },
            body,
          }).then(
            async (r) => ({ status: r.status, body: await r.json().catch(() => null) }),
            () => ({ status: 0, body: null }),
          );
          if (reply.status === 200) return reply.body.data.id as number;
          retries++; // refused (the API is down), reset mid-request, or 503
          await sleep(200);
        }
      };
      const killer = (async () => {
        await waitFor(() => next >= N / 3, 60_000, "a third of the creates");
        await i.api.kill("SIGKILL");
        await sleep(500);
        await i.api.restart();
      })();
      const created: number[] = [];
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < N) created.push(await create(next++));
        }),
      );
      await killer;
      const rows = await i.db.workOrder.findMany({
        where: { title: { startsWith: `Fault create ${runId}-` } },
        select: { id: true, title: true },
      });
      // Exactly one work order per request, whatever the client had to retry.
      expect(rows).toHaveLength(N);
      expect(new Set(rows.map((r) => r.title)).size).toBe(N);
      expect(new Set(created)).toEqual(new Set(rows.map((r) => r.id)));
      await allArrived(created, 90_000, "the create events");
      return {
        workOrderIds: created,
        notes: `${N} creates, ${retries} client retries, ${rows.length} work orders (no duplicate)`,
      };
    });
  }, 180_000);
});

function headersOf(inst: Installation, ref: string): Record<string, string> {
  const key = inst.fixture.keys[ref];
  return { "X-API-KEY": key.apiKey, "SVC-KEY": key.svcKey! };
}
