// Composition root: opens the shared resources once and starts the roles this process runs.
import type { Redis } from "ioredis";
import { connectRedis } from "./redis.ts";
import type { Config } from "./config.ts";
import { createDb } from "./db.ts";
import { ReadReplicas } from "./read-replicas.ts";
import { createLogger } from "./logger.ts";
import type { Services } from "./schema/core/context.ts";
import { buildSchemas } from "./schema/index.ts";
import { createApiServer } from "./http/server.ts";
import { RequestPipeline } from "./http/pipeline.ts";
import { RateLimiter } from "./http/rate-limit.ts";
import { PointsBudget } from "./http/graphql-budget.ts";
import { ViewerCache } from "./http/viewer-cache.ts";
import { RestAdapter } from "./rest/adapter.ts";
import { Metrics } from "./http/metrics/registry.ts";
import { registerStateGauges } from "./http/metrics/state.ts";
import { serveMetrics } from "./http/metrics/serve.ts";
import { startWorkers } from "./workers/index.ts";
import { LocalDiskStorage } from "./schema/files/public.ts";

export interface App {
  services: Services;
  redis: Redis;
  /** The port the API listens on (when the api role runs). */
  port?: number;
  /** The API's cache of verified keys (api role); `sync()` waits for key changes already committed. */
  viewers?: ViewerCache;
  /** The port of the metrics-only listener (METRICS_PORT), when one runs. */
  metricsPort?: number;
  /** This process's Prometheus registry: request metrics, the workers' counters, the state gauges. */
  metrics: Metrics;
  close(): Promise<void>;
}

const REDIS_STARTUP_WAIT_MS = 2_000;

function redisReady(redis: Redis, ms: number): Promise<void> {
  if (redis.status === "ready") return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off("ready", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once("ready", done);
  });
}

/**
 * Read-only requests read from the replicas (the workers write, and read what they write: primary
 * only): sets services.readDb; the closer ends the replicas' pools.
 */
async function readFromReplicas(config: Config, services: Services, metrics: Metrics): Promise<() => Promise<void>> {
  const replicas = new ReadReplicas(services.db, config.databaseReadUrls, {
    maxLagMs: config.databaseReadMaxLagMs,
    poolMax: config.dbPoolMax,
    waitMs: config.dbPoolWaitMs,
    logger: services.logger,
  });
  await replicas.start();
  metrics.watchReplicas(replicas);
  services.readDb = () => replicas.pick();
  return () => replicas.close();
}

const restOptionsOf = (config: Config) => ({
  uploadMaxBytes: config.uploadMaxBytes,
  throughSofa: config.restThroughSofa,
  resolvedRows: config.resolvedRows,
});

/** The GraphQL paths that the tests comparing them force (Config.graphqlThroughYoga, …, Config.resolvedRows). */
const graphqlPathsOf = (config: Config) => ({
  throughYoga: config.graphqlThroughYoga,
  interpreted: config.graphqlInterpreted,
  resolvedRows: config.resolvedRows,
});

export async function startApp(config: Config, overrides: Partial<Services> = {}): Promise<App> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const db =
    overrides.db ??
    createDb(config.databaseUrl, {
      max: config.dbPoolMax,
      waitMs: config.dbPoolWaitMs,
      onConnectionError: (err) => logger.warn({ err: err.message }, "database connection lost; reconnecting on demand"),
    });
  const services: Services = {
    db,
    logger,
    now: overrides.now ?? (() => new Date()),
    files: overrides.files ?? new LocalDiskStorage(config.fileStorageDir),
    publicUrl: overrides.publicUrl ?? config.publicUrl,
    search: { bitmaps: config.searchBitmaps, bitmapMinCompany: config.searchBitmapMinCompany },
  };
  // Fail fast while Redis is unreachable (no offline queue): the API must not hang on it.
  const redis = connectRedis(config, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on("error", (err) => logger.warn({ err: err.message }, "redis connection error"));
  const closers: (() => Promise<void>)[] = [];
  services.portalUrl = overrides.portalUrl ?? config.portalUrl;
  let port: number | undefined;
  let viewers: ViewerCache | undefined;
  let metricsPort: number | undefined;
  // One registry per process: a process running both roles shows the workers' counters on the API's
  // /metrics. The state gauges are read at scrape time wherever /metrics is served.
  const metrics = new Metrics({ worker: config.roles.worker });
  const serving = config.roles.api || config.metricsPort !== undefined;
  if (serving) {
    metrics.watchDbPool(db);
    metrics.watchKeptAnswers();
    const gauges = registerStateGauges(metrics.registry, {
      db,
      now: services.now,
      logger,
      redis,
      redisPrefix: config.redisPrefix,
    });
    closers.push(() => gauges.close());
  }

  if (config.roles.worker) {
    const workers = await startWorkers(config, services, metrics);
    closers.push(() => workers.close());
  }
  if (config.metricsPort !== undefined) {
    const listener = await serveMetrics(metrics, config.metricsPort, logger);
    metricsPort = listener.port;
    closers.unshift(() => listener.close());
  }
  if (config.roles.api) {
    if (config.databaseReadUrls.length > 0) closers.push(await readFromReplicas(config, services, metrics));
    // The first requests should find the rate limiter's Redis connected; a Redis that is down does not
    // hold the API back longer than this (the limiter then fails open).
    await redisReady(redis, REDIS_STARTUP_WAIT_MS);
    const schemas = buildSchemas();
    viewers = new ViewerCache(db, config.databaseUrl, logger);
    await viewers.start();
    closers.push(() => viewers!.close());
    const pipeline = new RequestPipeline(
      services,
      viewers,
      new RateLimiter(redis, config.redisPrefix, logger),
      new PointsBudget(redis, config.redisPrefix, logger),
    );
    const api = createApiServer(services, {
      graphqlSchema: schemas.graphql,
      pipeline,
      rest: new RestAdapter(schemas.rest, services, pipeline, restOptionsOf(config)),
      redis,
      redisPrefix: config.redisPrefix,
      live: config.live,
      development: config.development,
      shutdownGraceMs: config.shutdownGraceMs,
      graphqlPaths: graphqlPathsOf(config),
      metrics,
    });
    await new Promise<void>((resolve) => api.server.listen(config.port, resolve));
    port = (api.server.address() as { port: number }).port;
    logger.info({ port }, "api listening");
    closers.unshift(() => api.close());
  }

  return {
    services,
    redis,
    port,
    viewers,
    metricsPort,
    metrics,
    async close() {
      for (const close of closers) await close();
      redis.disconnect();
      if (!overrides.db) await db.$disconnect();
    },
  };
}
