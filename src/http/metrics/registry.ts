// Prometheus metrics (prom-client), one registry per app instance (tests run several in one process):
//   - requests: counts and latency by route and status (the api role; server.ts calls observe);
//   - work counters: webhook attempts, expiries and latency, mail sends (the worker role calls the
//     hooks of DeliveryMetrics and MailMetrics; the features know no prom-client);
//   - state gauges read from PostgreSQL and Redis at scrape time (state.ts);
//   - the process defaults.
// A process running both roles has one registry for all of it; a worker-only process serves it on
// METRICS_PORT (serve.ts). docs/operations.md, "Metrics", lists every metric.
import client from "prom-client";
import { type Db, poolBusyTimeouts, sqlPool } from "../../db.ts";
import type { ReadReplicas } from "../../read-replicas.ts";
import type { DeliveryMetrics } from "../../schema/webhooks/public.ts";
import type { MailMetrics } from "../../schema/mail/public.ts";
import { keptAnswerCounts } from "../../schema/core/kept-answers.ts";

/** 2xx, 3xx, 4xx, 5xx, or `error` when no answer came (timeout, refused connection, refused URL). */
const statusClass = (statusCode: number | null) =>
  statusCode === null ? "error" : `${Math.floor(statusCode / 100)}xx`;

export class Metrics implements DeliveryMetrics, MailMetrics {
  readonly registry = new client.Registry();
  private readonly duration = new client.Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request latency by route and status",
    labelNames: ["method", "route", "status"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  private readonly requests = new client.Counter({
    name: "http_requests_total",
    help: "HTTP requests by route and status",
    labelNames: ["method", "route", "status"],
    registers: [this.registry],
  });
  private readonly deliveries = new client.Counter({
    name: "webhook_deliveries_total",
    help: "Webhook delivery attempts recorded by this worker, by outcome: delivered (2xx), retry (failed; another attempt is scheduled), expired (given up under the three-hour rule: a failed last attempt, a delivery claimed too late, or the expiry sweep)",
    labelNames: ["outcome"],
    registers: [this.registry],
  });
  private readonly deliveryDuration = new client.Histogram({
    name: "webhook_delivery_duration_seconds",
    help: "Duration of one webhook POST (signing, connecting, the receiver's answer; 10 s timeout), by the answer's status class (error: no answer)",
    labelNames: ["status_class"],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly deliveryLag = new client.Histogram({
    name: "webhook_delivery_lag_seconds",
    help: "Seconds from the change (the outbox event's creation) to the receiver's acknowledgement, for delivered webhooks (retries included)",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 1800, 3600, 10800],
    registers: [this.registry],
  });
  private readonly mail = new client.Counter({
    name: "mail_messages_total",
    help: "Mail send attempts recorded by this worker, by outcome: sent, retry (failed; due again after the backoff), failed (the last of 5 attempts failed; given up)",
    labelNames: ["outcome"],
    registers: [this.registry],
  });

  /** `worker`: this process runs the worker role, so its counters start at zero for every outcome. */
  constructor(options: { worker?: boolean } = {}) {
    client.collectDefaultMetrics({ register: this.registry });
    if (options.worker) {
      // Zero from the start, so rate() and increase() see the first event of every outcome.
      for (const outcome of ["delivered", "retry", "expired"]) this.deliveries.inc({ outcome }, 0);
      for (const outcome of ["sent", "retry", "failed"]) this.mail.inc({ outcome }, 0);
    }
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.duration.observe(labels, seconds);
    this.requests.inc(labels);
  }

  webhookAttempt(report: Parameters<DeliveryMetrics["webhookAttempt"]>[0]): void {
    this.deliveries.inc({ outcome: report.outcome });
    if (report.post)
      this.deliveryDuration.observe({ status_class: statusClass(report.post.statusCode) }, report.post.seconds);
    if (report.sinceEventSeconds !== undefined) this.deliveryLag.observe(report.sinceEventSeconds);
  }

  webhooksExpired(count: number): void {
    this.deliveries.inc({ outcome: "expired" }, count);
  }

  mailAttempt(outcome: "sent" | "retry" | "failed"): void {
    this.mail.inc({ outcome });
  }

  /** The process's database pool: connections in use, queries waiting for one, waits that timed out. */
  watchDbPool(db: Db): void {
    const pool = sqlPool(db);
    new client.Gauge({
      name: "db_pool_connections",
      help: "Database connections of this process's pool, by state: idle, busy (checked out), waiting (queries waiting for a free connection)",
      labelNames: ["state"],
      registers: [this.registry],
      collect() {
        this.set({ state: "idle" }, pool.idleCount);
        this.set({ state: "busy" }, pool.totalCount - pool.idleCount);
        this.set({ state: "waiting" }, pool.waitingCount);
      },
    });
    let counted = 0;
    new client.Counter({
      name: "db_pool_busy_timeouts_total",
      help: "Queries turned away (503, Retry-After) because every connection of the pool stayed busy for the bounded wait",
      registers: [this.registry],
      collect() {
        const now = poolBusyTimeouts(db);
        this.inc(now - counted);
        counted = now;
      },
    });
  }

  /** Chart answers (schema/core/kept-answers.ts): given from a kept answer or read, and the rows kept. */
  watchKeptAnswers(): void {
    this.totalsCounter(
      "chart_answers_total",
      "Buyers' workOrderStats answers by how they were made: kept (given again, still exact), patched (the groups of the locations or supplier facilities written since read again) or read (the statement ran)",
      "outcome",
      () => ({ kept: keptAnswerCounts.kept, patched: keptAnswerCounts.patched, read: keptAnswerCounts.read }),
    );
    new client.Gauge({
      name: "chart_answers_kept_rows",
      help: "Rows of chart answers this process keeps in memory (at most 200,000 per database)",
      registers: [this.registry],
      collect() {
        this.set(keptAnswerCounts.rows);
      },
    });
  }

  /** The read replicas (DATABASE_READ_URL): each one's replay lag and whether it is read from; where reads went. */
  watchReplicas(replicas: ReadReplicas): void {
    new client.Gauge({
      name: "db_replica_lag_seconds",
      help: "Replay lag of each read replica: how long ago the primary wrote what the replica has not replayed yet (WAL positions compared every 0.5 s); absent while the replica does not answer",
      labelNames: ["replica"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const r of replicas.states()) if (r.lagMs !== undefined) this.set({ replica: r.name }, r.lagMs / 1000);
      },
    });
    new client.Gauge({
      name: "db_replica_usable",
      help: "1 while a read replica is read from (it answers and its lag is within DATABASE_READ_MAX_LAG_MS), else 0",
      labelNames: ["replica"],
      registers: [this.registry],
      collect() {
        for (const r of replicas.states()) this.set({ replica: r.name }, r.usable ? 1 : 0);
      },
    });
    this.totalsCounter(
      "db_read_requests_total",
      "Read-only requests (REST lists, counts and searches, GraphQL queries) by where they read: replica, or primary when no replica was usable",
      "target",
      () => ({ ...replicas.reads }),
    );
  }

  /** A counter by `label` reporting, at each scrape, how much the running totals `read` gives have grown. */
  private totalsCounter(name: string, help: string, label: string, read: () => Record<string, number>): void {
    const counted: Record<string, number> = {};
    new client.Counter({
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      collect() {
        for (const [value, total] of Object.entries(read())) {
          this.inc({ [label]: value }, total - (counted[value] ?? 0));
          counted[value] = total;
        }
      },
    });
  }
}
