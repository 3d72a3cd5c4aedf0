// GraphQL for dashboards and live UIs: yoga over HTTP (GraphiQL in development) and graphql-ws on the
// same path. The same key headers authenticate (for websockets: the connection's connectionParams).
import type { Server } from "node:http";
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { WebSocketServer } from "ws";
import { useServer } from "graphql-ws/use/ws";
import type { GraphQLSchema } from "graphql";
import { ApiError, unauthorized } from "../schema/common/errors.ts";
import { authenticate, type Viewer } from "../schema/identity/viewer.ts";
import type { Context, Services } from "../schema/context.ts";
import { DEFAULT_RATE_LIMIT, type RateLimiter } from "./rate-limit.ts";
import { requestScope, traceIdFrom } from "./request-scope.ts";
import type { EventServices } from "../schema/webhooks/subscriptions.ts"; // events wiring: live events + replay queue

/** Deepest selection a GraphQL query may have; the dashboards' deepest query needs about 6. */
export const MAX_QUERY_DEPTH = 10;

type Initial = { request?: Request; viewer?: Viewer; traceId?: string };

function headerOf(source: Record<string, unknown> | Headers | undefined, name: string): string {
  if (!source) return "";
  // Request headers (yoga's own Headers class, so no instanceof) or websocket connectionParams.
  if (typeof source.get === "function") return (source as Headers).get(name) ?? "";
  const hit = Object.entries(source).find(([k]) => k.toLowerCase() === name);
  return typeof hit?.[1] === "string" ? hit[1] : "";
}

// `events` (events wiring): the Redis-backed live events for subscriptions (graphql-ws and SSE) and the
// webhook queue for replays; put on every GraphQL context.
export function createGraphql(schema: GraphQLSchema, services: Services, limiter: RateLimiter, development: boolean, events?: EventServices) {
  const yoga: YogaServerInstance<Initial, Context> = createYoga<Initial, Context>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: development,
    landingPage: false,
    logging: false,
    // Relations make the graph cyclic (region → locations → region …): bound how deep a query may go.
    plugins: [maxDepthPlugin({ n: MAX_QUERY_DEPTH, exposeLimits: true })],
    context: async (initial): Promise<Context> => {
      const traceId = initial.traceId ?? requestScope.getStore()?.traceId ?? traceIdFrom({});
      let viewer = initial.viewer;
      if (!viewer) {
        const headers = initial.request?.headers;
        const found = await authenticate(services.db, headerOf(headers, "x-api-key"), headerOf(headers, "svc-key"), services.now());
        if (!found) throw unauthorized();
        viewer = found;
      }
      const limit = await limiter.hit(viewer.keyId, viewer.rateLimit ?? DEFAULT_RATE_LIMIT);
      if (!limit.allowed) {
        throw new ApiError(429, "TooManyRequestsException", `rate limit of ${limit.limit} requests exceeded`, {
          "Retry-After": String(limit.resetSeconds),
        });
      }
      return { ...services, viewer, traceId, channel: "graphql", events };
    },
  });
  return yoga;
}

/** graphql-ws on the HTTP server's /graphql; the key comes in connectionParams (X-API-KEY, SVC-KEY). */
export function attachWebsockets(server: Server, yoga: ReturnType<typeof createGraphql>, services: Services) {
  const wss = new WebSocketServer({ server, path: "/graphql" });
  const cleanup = useServer<Record<string, unknown>, { viewer?: Viewer }>(
    {
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const viewer = await authenticate(services.db, headerOf(params, "x-api-key"), headerOf(params, "svc-key"), services.now());
        if (!viewer) return false;
        ctx.extra.viewer = viewer;
        return true;
      },
      execute: (args: any) => args.rootValue.execute(args),
      subscribe: (args: any) => args.rootValue.subscribe(args),
      onSubscribe: async (ctx, _id, payload) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          viewer: ctx.extra.viewer,
          traceId: traceIdFrom({}),
        } as Initial);
        const document = parse(payload.query);
        const errors = validate(schema, document);
        if (errors.length) return errors;
        return {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        };
      },
    },
    wss,
  );
  return { close: async () => { await cleanup.dispose(); wss.close(); } };
}
