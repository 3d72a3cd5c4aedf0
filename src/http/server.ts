// The HTTP process: one node:http server for REST (/v1/...), GraphQL (/graphql, with websockets),
// health (/healthz, /readyz), metrics (/metrics), the docs (/docs, /docs/<guide>) and their assets (/assets/).
import { once } from "node:events";
import http from "node:http";
import type { Redis } from "ioredis";
import type { GraphQLSchema } from "graphql";
import { trackingWrites } from "../db.ts";
import type { Logger } from "../logger.ts";
import type { Services } from "../schema/core/context.ts";
import { errorBody, notFound } from "../schema/core/errors.ts";
import { asyncApiJson } from "../schema/webhooks/public.ts";
import { createLiveEvents, type LiveSettings } from "../schema/live/public.ts";
import { toApiError } from "./errors.ts";
import { Metrics } from "./metrics/registry.ts";
import { credentialsFrom, type RequestPipeline } from "./pipeline.ts";
import { PersistedOperations } from "./persisted-operations.ts";
import { logDetails, requestScope, traceIdFrom, type RequestScope } from "./request-scope.ts";
import { attachWebsockets, createGraphql, MAX_DOCUMENT_LENGTH, serveGraphqlHttp } from "./graphql.ts";
import { ASSET_PREFIX, serveAsset } from "./assets.ts";
import { DOCS_CSP, docsIndex, guidePage } from "./docs.ts";
import { LIVE_BOARD_PATH, serveLiveBoard } from "./live-board.ts";

/** A transport served under a path prefix (the REST interfaces, src/rest/adapter.ts). */
interface PathHandler {
  /** The interface a path belongs to, or undefined when it is not one of this handler's paths. */
  interfaceOf(path: string): string | undefined;
  handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, iface: string): Promise<void>;
}

export interface ApiOptions {
  graphqlSchema: GraphQLSchema;
  pipeline: RequestPipeline;
  rest: PathHandler;
  redis: Redis;
  redisPrefix: string;
  /** Live subscriptions: replay window, buffers, limits per key (Config.live). */
  live: LiveSettings;
  development: boolean;
  shutdownGraceMs: number;
  /**
   * The tests that compare GraphQL's paths: every request through yoga (Config.graphqlThroughYoga),
   * every query run by graphql-js, none compiled (Config.graphqlInterpreted), every row resolved field by
   * field, none answered by its statement (Config.resolvedRows).
   */
  graphqlPaths?: { throughYoga?: boolean; interpreted?: boolean; resolvedRows?: boolean };
  /** The process's registry (shared with its workers when it runs both roles); a new one by default. */
  metrics?: Metrics;
}

export function createApiServer(services: Services, options: ApiOptions) {
  const metrics = options.metrics ?? new Metrics();
  // Subscriptions fan out from the relay's Redis channel.
  const liveEvents = createLiveEvents({ ...services, ...options });
  const yoga = createGraphql(
    options.graphqlSchema,
    services,
    options.pipeline,
    options.development,
    { live: liveEvents },
    { interpreted: options.graphqlPaths?.interpreted, resolvedRows: options.graphqlPaths?.resolvedRows },
  );
  // Automatic persisted queries (APQ): documents in Redis; only a key that authenticates registers one.
  const persisted = new PersistedOperations(
    options.redis,
    options.redisPrefix,
    services.logger,
    async (headers) => (await options.pipeline.identify(credentialsFrom(headers))) !== null,
    MAX_DOCUMENT_LENGTH,
  );
  const route = router(services, options, metrics, yoga, persisted);
  let inFlight = 0;
  let draining: (() => void) | undefined;

  const server = http.createServer((req, res) => {
    const started = process.hrtime.bigint();
    const scope = openScope(req, res, services.logger);
    const url = req.url; // as requested (a handler may rewrite req.url)
    inFlight++;
    res.on("close", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observe(req.method ?? "GET", scope.route, res.statusCode, seconds);
      scope.logger.info(
        { method: req.method, url, status: res.statusCode, ms: Math.round(seconds * 1e4) / 10, ...scope.details },
        "request",
      );
      if (--inFlight === 0) draining?.();
    });
    requestScope.run(scope, () =>
      trackingWrites(async () => {
        try {
          await route(req, res, new URL(req.url ?? "/", "http://localhost"), scope);
        } catch (error) {
          answerError(res, error, scope);
        }
      }),
    );
  });
  server.keepAliveTimeout = 5_000;
  const websockets = attachWebsockets(server, yoga, options.pipeline, options.live.maxConnectionsPerKey);

  return {
    server,
    metrics,
    /** Stop accepting, let in-flight requests finish (up to the grace period), then close sockets. */
    async close(): Promise<void> {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await liveEvents.close(); // ends live subscriptions (SSE responses) so they drain
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => (draining = resolve)),
          new Promise((resolve) => setTimeout(resolve, options.shutdownGraceMs).unref()),
        ]);
      }
      server.closeAllConnections();
      await websockets.close();
      await closed;
    },
  };
}

/** A request's scope: its trace id (sent back in X-Trace-Id), its logger, the route it matched, log details. */
function openScope(req: http.IncomingMessage, res: http.ServerResponse, logger: Logger): RequestScope {
  const traceId = traceIdFrom(req.headers);
  res.setHeader("x-trace-id", traceId);
  return {
    traceId,
    logger: logger.child({ traceId }),
    route: "unmatched",
    details: {},
    setHeaders: (headers) => {
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    },
  };
}

/** What a route threw, as the contract's error body; a response already under way is cut off instead. */
function answerError(res: http.ServerResponse, error: unknown, scope: RequestScope) {
  const apiError = toApiError(error, scope.logger);
  logDetails({ errorType: apiError.type });
  const headers = (apiError.extensions.http as { headers?: Record<string, string> } | undefined)?.headers;
  if (!res.headersSent) json(res, apiError.status, errorBody(apiError, scope.traceId), headers);
  else res.destroy();
}

/** Each path to what serves it: REST, GraphQL, then the operational endpoints, the docs and their assets. */
function router(
  services: Services,
  options: ApiOptions,
  metrics: Metrics,
  yoga: ReturnType<typeof createGraphql>,
  persisted: PersistedOperations,
) {
  const { rest } = options;
  return async (req: http.IncomingMessage, res: http.ServerResponse, url: URL, scope: RequestScope) => {
    const iface = rest.interfaceOf(url.pathname);
    if (iface) return rest.handle(req, res, url, iface);
    if (url.pathname === "/graphql") {
      scope.route = "/graphql";
      return serveGraphqlHttp(yoga, req, res, url, { throughYoga: options.graphqlPaths?.throughYoga, persisted });
    }
    scope.route = url.pathname;
    if (url.pathname === "/asyncapi.json") {
      res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      return void res.end(asyncApiJson());
    }
    if (url.pathname === "/healthz") return json(res, 200, { status: "ok" });
    if (url.pathname === "/readyz") {
      const [database, redis] = await Promise.all([
        probe(services.db.$queryRaw`SELECT 1`),
        probe(redisPing(options.redis)),
      ]);
      return json(res, database === "ok" && redis === "ok" ? 200 : 503, { database, redis });
    }
    if (url.pathname === "/metrics") {
      res.writeHead(200, { "content-type": metrics.registry.contentType });
      return void res.end(await metrics.registry.metrics());
    }
    if (url.pathname === "/docs" || url.pathname === "/docs/" || url.pathname === "/") {
      return html(res, docsIndex({ graphiql: options.development }));
    }
    if (options.development && url.pathname.startsWith(LIVE_BOARD_PATH)) return serveLiveBoard(res, url.pathname);
    const guide = url.pathname.startsWith("/docs/") ? guidePage(url.pathname.slice("/docs/".length)) : undefined;
    if (guide) {
      scope.route = "/docs/:guide";
      return html(res, guide);
    }
    if (url.pathname.startsWith(ASSET_PREFIX)) {
      scope.route = `${ASSET_PREFIX}:asset`;
      if (serveAsset(req, res, url.pathname)) return;
    }
    scope.route = "unmatched";
    json(res, 404, errorBody(notFound(`no route ${req.method} ${url.pathname}`), scope.traceId));
  };
}

/** How long a readiness check may take before its service counts as down. */
const PROBE_TIMEOUT_MS = 1000;

/** "ok" when the check answers within a second; a dependency that hangs is as down as one that fails. */
function probe(check: PromiseLike<unknown>): Promise<"ok" | "down"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"down">((resolve) => (timer = setTimeout(() => resolve("down"), PROBE_TIMEOUT_MS)));
  return Promise.race([
    Promise.resolve(check).then(
      () => "ok" as const,
      () => "down" as const,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

/**
 * PING once the client is connected. The client has no offline queue (a request fails at once while
 * Redis is away), so a probe during start-up waits for the connection, within the probe's time,
 * instead of reporting a Redis that is just being connected to as down.
 */
async function redisPing(redis: Redis): Promise<unknown> {
  if (redis.status !== "ready") await once(redis, "ready", { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  return redis.ping();
}

function html(res: http.ServerResponse, page: string) {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": DOCS_CSP });
  res.end(page);
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { ...headers, "content-type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(body));
}
