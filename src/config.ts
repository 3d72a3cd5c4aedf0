// Runtime configuration from the environment (a local `.env` is loaded when present).
import fs from "node:fs";
import { replicaUrls } from "./database-urls.ts";

if (fs.existsSync(".env")) process.loadEnvFile(".env");

function bool(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === "") return fallback;
  return ["1", "true", "yes", "on"].includes(value.toLowerCase());
}

export interface Config {
  port: number;
  /**
   * DATABASE_URL: the primary; several hosts (`postgresql://u@h1:5432,h2:5433/db`) for failover, each new
   * connection going to the one that is read-write (src/db.ts; docs/deployment.md).
   */
  databaseUrl: string;
  /** DATABASE_READ_URL: hot standbys that read-only requests read from (src/read-replicas.ts); none: the primary. */
  databaseReadUrls: string[];
  /** DATABASE_READ_MAX_LAG_MS: a replica whose replay lag is above this is not read from (default 3000). */
  databaseReadMaxLagMs: number;
  /** DB_POOL_MAX: database connections of this process's pool. */
  dbPoolMax: number;
  /** DB_POOL_WAIT_MS: how long a query waits for a free connection before its request answers 503 busy. */
  dbPoolWaitMs: number;
  redisUrl: string;
  /** REDIS_SENTINELS (host:port,…): reach Redis through these Sentinels instead of REDIS_URL. */
  redisSentinels?: { host: string; port: number }[];
  /** REDIS_MASTER_NAME: the Sentinels' name for the primary (default mymaster). */
  redisMasterName: string;
  /** Prefix of every Redis key, so several installs (or test files) can share one Redis. */
  redisPrefix: string;
  smtpUrl: string;
  portalUrl: string;
  webhookAllowInsecureUrls: boolean;
  logLevel: string;
  development: boolean;
  /** Which roles this process runs: the HTTP API, the background workers, or both (one-machine install). */
  roles: { api: boolean; worker: boolean };
  shutdownGraceMs: number;
  /** Multiplies the webhook retry delays of docs/decisions.md#webhooks (WEBHOOK_RETRY_SCALE; 1 in production). */
  webhookRetryScale: number;
  /** How often the outbox relay looks for new events when idle (RELAY_INTERVAL_MS). */
  relayIntervalMs: number;
  /** Webhook deliveries in flight per worker process (WEBHOOK_CONCURRENCY). */
  webhookConcurrency: number;
  /** First retry delay of a failed mail (exponential backoff); MAIL_RETRY_DELAY_MS, small in tests. */
  mailRetryDelayMs: number;
  /** How often the built-in planned maintenance generator runs a round (PM_GENERATOR_INTERVAL_MS). */
  pmGeneratorIntervalMs: number;
  /** Work orders of a company a search term must be in before it gets bitmaps (docs/work-order-search.md). */
  searchBitmapMinDocs: number;
  /** Off: every search takes the GIN path (to compare, or to rule the bitmaps out). */
  searchBitmaps: boolean;
  /**
   * SEARCH_BITMAP_MIN_COMPANY: indexed work orders a company needs before its lists and counts without
   * a search text are answered from the bitmaps (below it, plain SQL is one statement instead of three).
   */
  searchBitmapMinCompany: number;
  /** FILE_STORAGE_DIR: where the local-disk file storage keeps uploads (created on first upload). */
  fileStorageDir: string;
  /** UPLOAD_MAX_BYTES: a cap below every upload route's own limit (512 MB invoice PDFs, 100 MB files); unset: the routes' limits. */
  uploadMaxBytes?: number;
  /** PUBLIC_URL: this API's base URL as integrators reach it; links to stored files are built on it. */
  publicUrl: string;
  /**
   * WORK_LEASE_MS: how long a webhook or mail attempt holds its row. A worker that dies mid-attempt
   * leaves the row due again after this; keep it well above the 10 s delivery timeout.
   */
  workLeaseMs: number;
  /**
   * METRICS_PORT: a listener of its own for GET /metrics (Prometheus), in any role. A worker-only
   * process has no other way to show its counters; unset (the default): no such listener, and an API
   * process serves /metrics on PORT as always.
   */
  metricsPort?: number;
  /** Live subscriptions (docs/events.md, "Subscriptions"): replay window, buffers, limits per key. */
  live: {
    /** LIVE_RETENTION_HOURS (24): how far back a subscription may resume with `after`. */
    retentionHours: number;
    /** LIVE_BUFFER (2000): events one subscription may have waiting before it is ended as too slow. */
    bufferLimit: number;
    /** LIVE_MAX_CONNECTIONS_PER_KEY (20): websocket connections of one key on one API instance. */
    maxConnectionsPerKey: number;
    /** LIVE_MAX_SUBSCRIPTIONS_PER_KEY (50): live subscriptions of one key on one API instance. */
    maxSubscriptionsPerKey: number;
    /** LIVE_CATCH_UP_MS (1000): how often an instance reads the outbox for events Redis did not bring. */
    catchUpMs: number;
  };
  /**
   * Every GraphQL request through yoga's fetch layer, none answered directly (http/graphql.ts
   * serveDirect). Not read from the environment: test/foundation/graphql-direct.test.ts sets it to
   * compare the two paths.
   */
  graphqlThroughYoga?: boolean;
  /**
   * Every GraphQL query run by graphql-js, none compiled (http/graphql-jit.ts). Not read from the
   * environment: test/foundation/graphql-compiled.test.ts sets it to compare the two.
   */
  graphqlInterpreted?: boolean;
  /**
   * Every row of a list (REST or GraphQL) resolved field by field, none answered by the statement that
   * reads it (schema/core/statement-answers.ts). Not read from the environment:
   * test/dashboards/statement-answers.test.ts sets it to compare the two.
   */
  resolvedRows?: boolean;
  /**
   * Every REST request through SOFA's router, GET routes included (rest/sofa.ts `direct`). Set only by
   * test/foundation/rest-direct.test.ts, to compare the two paths.
   */
  restThroughSofa?: boolean;
}

/** "a:26379,b:26380" → [{host: "a", port: 26379}, …]; a bare host gets Sentinel's port 26379. */
export function parseSentinels(value: string | undefined): { host: string; port: number }[] | undefined {
  if (!value?.trim()) return undefined;
  return value.split(",").map((entry) => {
    const [host, port] = entry.trim().split(":");
    if (!host) throw new Error(`REDIS_SENTINELS: "${entry}" is not host:port`);
    const number = Number(port ?? 26379);
    if (!Number.isInteger(number) || number <= 0) throw new Error(`REDIS_SENTINELS: "${entry}" has no valid port`);
    return { host, port: number };
  });
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const roles = (env.ROLES ?? "api,worker").split(",").map((r) => r.trim());
  return {
    port: Number(env.PORT ?? 4000),
    databaseUrl: env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/wo_service",
    databaseReadUrls: replicaUrls(env.DATABASE_READ_URL),
    databaseReadMaxLagMs: Number(env.DATABASE_READ_MAX_LAG_MS ?? 3_000),
    dbPoolMax: Number(env.DB_POOL_MAX ?? 10),
    dbPoolWaitMs: Number(env.DB_POOL_WAIT_MS ?? 5_000),
    redisUrl: env.REDIS_URL ?? "redis://127.0.0.1:6379",
    redisSentinels: parseSentinels(env.REDIS_SENTINELS),
    redisMasterName: env.REDIS_MASTER_NAME || "mymaster",
    redisPrefix: env.REDIS_PREFIX ?? "wo",
    smtpUrl: env.SMTP_URL ?? "smtp://127.0.0.1:1025",
    portalUrl: env.PORTAL_URL ?? "http://localhost:4000",
    webhookAllowInsecureUrls: bool(env.WEBHOOK_ALLOW_INSECURE_URLS, false),
    logLevel: env.LOG_LEVEL ?? "info",
    development: (env.NODE_ENV ?? "development") !== "production",
    roles: { api: roles.includes("api"), worker: roles.includes("worker") },
    shutdownGraceMs: Number(env.SHUTDOWN_GRACE_MS ?? 10_000),
    webhookRetryScale: Number(env.WEBHOOK_RETRY_SCALE ?? 1),
    relayIntervalMs: Number(env.RELAY_INTERVAL_MS ?? 100),
    webhookConcurrency: Number(env.WEBHOOK_CONCURRENCY ?? 200),
    mailRetryDelayMs: Number(env.MAIL_RETRY_DELAY_MS ?? 5_000),
    pmGeneratorIntervalMs: Number(env.PM_GENERATOR_INTERVAL_MS ?? 60_000),
    searchBitmapMinDocs: Number(env.SEARCH_BITMAP_MIN_DOCS ?? 1_000),
    searchBitmaps: bool(env.SEARCH_BITMAPS, true),
    searchBitmapMinCompany: Number(env.SEARCH_BITMAP_MIN_COMPANY ?? 20_000),
    fileStorageDir: env.FILE_STORAGE_DIR || "data/files",
    uploadMaxBytes: env.UPLOAD_MAX_BYTES ? Number(env.UPLOAD_MAX_BYTES) : undefined,
    publicUrl: (env.PUBLIC_URL || `http://localhost:${env.PORT ?? 4000}`).replace(/\/+$/, ""),
    workLeaseMs: Number(env.WORK_LEASE_MS ?? 60_000),
    metricsPort: env.METRICS_PORT ? Number(env.METRICS_PORT) : undefined,
    live: {
      retentionHours: Number(env.LIVE_RETENTION_HOURS ?? 24),
      bufferLimit: Number(env.LIVE_BUFFER ?? 2_000),
      maxConnectionsPerKey: Number(env.LIVE_MAX_CONNECTIONS_PER_KEY ?? 20),
      maxSubscriptionsPerKey: Number(env.LIVE_MAX_SUBSCRIPTIONS_PER_KEY ?? 50),
      catchUpMs: Number(env.LIVE_CATCH_UP_MS ?? 1_000),
    },
  };
}
