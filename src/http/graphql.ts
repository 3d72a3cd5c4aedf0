// GraphQL for dashboards and live UIs: yoga over HTTP (GraphiQL in development) and graphql-ws on the
// same path. Both go through the request pipeline (pipeline.ts): the same key headers authenticate
// (for websockets: the connection's connectionParams) and every operation counts against the rate limit.
import type { Server } from "node:http";
import { createYoga, maskError, type YogaServerInstance } from "graphql-yoga";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { WebSocketServer } from "ws";
import { useServer } from "graphql-ws/use/ws";
import { GraphQLError, type GraphQLSchema } from "graphql";
import { isConnectionError } from "../db.ts";
import { serviceUnavailable } from "../schema/core/errors.ts";
import type { Viewer } from "../schema/core/viewer.ts";
import type { Context, Services } from "../schema/core/context.ts";
import type { EventServices } from "../schema/webhooks/public.ts";
import { credentialsFrom, type RequestPipeline } from "./pipeline.ts";
import { requestScope, traceIdFrom } from "./request-scope.ts";

/** Deepest selection a GraphQL query may have; the dashboards' deepest query needs about 6. */
export const MAX_QUERY_DEPTH = 10;

type Initial = { request?: Request; viewer?: Viewer; traceId?: string };

/** `events`: the live events for subscriptions and the webhook queue for replays, on every GraphQL context. */
export function createGraphql(schema: GraphQLSchema, services: Services, pipeline: RequestPipeline, development: boolean, events?: EventServices) {
  const yoga: YogaServerInstance<Initial, Context> = createYoga<Initial, Context>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: development,
    landingPage: false,
    logging: false,
    // A database that cannot be reached is the contract's 503, over GraphQL too; the rest as yoga masks it.
    maskedErrors: {
      maskError: (error, message, isDev) =>
        isConnectionError(error instanceof GraphQLError ? error.originalError : error) ? serviceUnavailable() : maskError(error, message, isDev),
    },
    // Relations make the graph cyclic (region → locations → region …): bound how deep a query may go.
    plugins: [maxDepthPlugin({ n: MAX_QUERY_DEPTH, exposeLimits: true })],
    context: async (initial): Promise<Context> => {
      const scope = requestScope.getStore();
      const traceId = initial.traceId ?? scope?.traceId ?? traceIdFrom({});
      const viewer = initial.viewer ?? (await pipeline.authenticate(credentialsFrom(initial.request?.headers)));
      const limitHeaders = await pipeline.admit(viewer); // every operation counts, websockets included
      scope?.setHeaders(limitHeaders);
      return { ...services, viewer, traceId, channel: "graphql", events };
    },
  });
  return yoga;
}

/** graphql-ws on the HTTP server's /graphql; the key comes in connectionParams (X-API-KEY, SVC-KEY). */
export function attachWebsockets(server: Server, yoga: ReturnType<typeof createGraphql>, pipeline: RequestPipeline) {
  const wss = new WebSocketServer({ server, path: "/graphql" });
  const cleanup = useServer<Record<string, unknown>, { viewer?: Viewer }>(
    {
      onConnect: async (ctx) => {
        const viewer = await pipeline.identify(credentialsFrom(ctx.connectionParams));
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
        let contextValue: Context;
        try {
          contextValue = await contextFactory();
        } catch (error) {
          // A refusal (the rate limit) ends this operation with the error, not the whole connection.
          if (error instanceof GraphQLError) return [error];
          throw error;
        }
        return { schema, document, operationName: payload.operationName, variableValues: payload.variables, contextValue, rootValue: { execute, subscribe } };
      },
    },
    wss,
  );
  return { close: async () => { await cleanup.dispose(); wss.close(); } };
}
