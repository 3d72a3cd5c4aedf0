// GraphQL for dashboards and live UIs: yoga over HTTP (GraphiQL in development, served offline) and graphql-ws on the
// same path. Both go through the request pipeline (pipeline.ts): the same key headers authenticate
// (for websockets: the connection's connectionParams) and every operation counts against the rate limit.
// Hostile input is bounded before execution: the body size (read here, before parsing), depth, aliases,
// cost and document length (graphql-armor), and the input sanitation step (input.ts) on variables and
// literals. Errors leave as the contract's types and never echo the request (maskError).
import type http from "node:http";
import { Readable } from "node:stream";
import { pipeline as pipe } from "node:stream/promises";
import {
  createYoga,
  processRegularResult,
  type FetchAPI,
  type GraphQLParams,
  type Plugin,
  type YogaServerInstance,
} from "graphql-yoga";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { costLimitPlugin } from "@escape.tech/graphql-armor-cost-limit";
import { characterLimitPlugin } from "@escape.tech/graphql-armor-character-limit";
import { WebSocketServer } from "ws";
import { useServer } from "graphql-ws/use/ws";
import { isAsyncIterable } from "@graphql-tools/utils";
import {
  getOperationAST,
  GraphQLError,
  Kind,
  visit,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import type { Viewer } from "../schema/core/viewer.ts";
import type { Context, Services } from "../schema/core/context.ts";
import { badInput } from "../schema/core/errors.ts";
import { perKeyLimit, subscribeSharingAnswers, type EventServices } from "../schema/live/public.ts";
import { inputError, toApiError } from "./errors.ts";
import { remade, withContractErrors } from "./graphql-errors.ts";
import { operationCost } from "./graphql-cost.ts";
import { compiledQueries } from "./graphql-jit.ts";
import { writeAnswer } from "./graphql-cache.ts";
import type { PersistedOperations } from "./persisted-operations.ts";
import { checkDocumentNesting, checkJson, checkText, MAX_BODY_BYTES, readBody } from "./input.ts";
import { credentialsFrom, type CostReport, type RequestPipeline } from "./pipeline.ts";
import { keptJsonAnswers } from "../schema/core/kept-json.ts";
import { stringifyToBytes, stringifyToParts, textAnswers } from "../schema/core/raw-json.ts";
import { logDetails, requestScope, STATEMENT_ANSWERS, traceIdFrom } from "./request-scope.ts";
import { sseEventIds } from "./sse-event-ids.ts";

/** Deepest selection a GraphQL query may have; the dashboards' deepest query needs about 6. */
const MAX_QUERY_DEPTH = 10;
/** Aliases per operation: enough for a dashboard's side-by-side lists, not for a thousand copies of one. */
export const MAX_ALIASES = 15;
/**
 * graphql-armor's document cost, objects 2 and scalars 1 summed over the document: a bound on its size
 * before it runs (a dashboard's board query costs about a hundred). Not weighted by depth, which
 * MAX_QUERY_DEPTH bounds already: armor's default ×1.5 per level priced a 25-row board with its notes and
 * labels as cursor connections (two levels each) at 28,000. What a query reads is priced by the page
 * sizes in the points budget (graphql-budget.ts).
 */
const MAX_COST = 5000;
const COST_DEPTH_FACTOR = 1;
/** Characters of a GraphQL document (variables are bounded by the body size). */
export const MAX_DOCUMENT_LENGTH = 20_000;

/** What a GraphQL context is made from: node's request over HTTP (its key headers), the viewer over websockets. */
type Initial = { req?: http.IncomingMessage; viewer?: Viewer; traceId?: string };

/** The name of the document's (first) operation, for the request log; anonymous operations have none. */
const operationNameOf = (document: DocumentNode) =>
  document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)?.name?.value;

/** Documents whose string literals passed: yoga's parser cache hands the same document to every request of its text. */
const literalsChecked = new WeakSet<DocumentNode>();

/** Variables and every string literal of the document through the input sanitation step. */
function checkOperation(document: DocumentNode, variables: unknown): void {
  checkJson(variables ?? {}, "variables");
  if (literalsChecked.has(document)) return;
  visit(document, {
    StringValue(node) {
      checkText(node.value, "a string literal");
    },
  });
  literalsChecked.add(document);
}

/** Input checks of every operation; validation errors (literals of the wrong type …) in the contract's words. */
const sanitation = (schema: GraphQLSchema): Plugin => ({
  onParse: ({ params }) => {
    checkDocumentNesting(typeof params.source === "string" ? params.source : params.source.body);
  },
  onValidate:
    () =>
    ({ result, setResult }) => {
      if (result.length === 0) return;
      setResult(
        result.map((error) => {
          const api = inputError(error);
          return new GraphQLError(api.message, {
            nodes: error.nodes,
            source: error.source,
            positions: error.positions,
            extensions: { code: api.type, ...(api.field ? { field: api.field } : {}) },
          });
        }),
      );
    },
  onExecute: ({ args }) => {
    logDetails({ operation: args.operationName ?? operationNameOf(args.document) });
    checkOperation(args.document, args.variableValues);
  },
  // Every error of a single result in the contract's shape (graphql-errors.ts); serveDirect does the same.
  onResultProcess: ({ result, setResult }) => {
    if (!isAsyncIterable(result) && !Array.isArray(result)) setResult(withContractErrors(result));
  },
  onSubscribe: ({ args }) => {
    checkOperation(args.document, args.variableValues);
    // Over HTTP a subscription is served as server-sent events only; anything else would hold the
    // connection open without a way to read it.
    const request = (args.contextValue as { request?: Request }).request;
    const accept = request?.headers.get("accept") ?? "";
    if (request && !/text\/event-stream/.test(accept)) {
      throw badInput(
        "subscriptions are served over websockets (graphql-ws) or as server-sent events (Accept: text/event-stream)",
      );
    }
  },
});

/**
 * A query reads from a read replica when there is a usable one (Services.readDb): the request's Context
 * gets that client before execution, so every resolver and relation of the query reads from it. A
 * mutation, its answer included, stays on the primary; so does a subscription (it reads the outbox
 * and follows it live, which a lagging replica would only delay).
 */
const replicaReads = (services: Services): Plugin<Context> => ({
  onExecute: ({ args, extendContext }) => {
    if (services.readDb && getOperationAST(args.document, args.operationName)?.operation === "query")
      extendContext({ db: services.readDb() });
  },
});

/**
 * GraphQL's rate limit: every operation (HTTP, server-sent events, websockets) spends its cost from the
 * key's points budget just before it runs (after the input checks, so refused input costs nothing),
 * and a query or mutation reports it in `extensions.cost` (docs/api.md, "GraphQL cost and budget").
 * A refusal (429, or 400 over the whole budget) becomes the operation's result, masked here because
 * yoga's masking hook, registered after this one, does not run once execution stops early.
 */
const costBudget = (pipeline: RequestPipeline, services: Services): Plugin => {
  const spend = async (args: {
    schema: GraphQLSchema;
    document: DocumentNode;
    operationName?: string | null;
    variableValues?: Record<string, unknown> | null;
    contextValue: unknown;
  }) => {
    const { viewer } = args.contextValue as Context;
    const cost = operationCost(args.schema, args.document, args.operationName, args.variableValues);
    const spent = await pipeline.spend(viewer, cost);
    requestScope.getStore()?.setHeaders(spent.headers);
    return spent.report;
  };
  const refused = (error: unknown, schema: GraphQLSchema) => ({ errors: [maskError(error, services, schema)] });
  return {
    onExecute: async ({ args, setResultAndStopExecution }) => {
      let report: CostReport;
      try {
        report = await spend(args);
      } catch (error) {
        return setResultAndStopExecution(refused(error, args.schema));
      }
      return {
        onExecuteDone: ({ result, setResult }) => {
          if (!isAsyncIterable(result)) setResult({ ...result, extensions: { ...result.extensions, cost: report } });
        },
      };
    },
    onSubscribe: async ({ args, setResultAndStopExecution }) => {
      try {
        await spend(args);
      } catch (error) {
        setResultAndStopExecution(refused(error, args.schema));
      }
    },
  };
};

/**
 * Subscriptions (both transports) execute each event once per answer class and give it to every
 * subscriber of the class, each result with its event's stream id (extensions.eventId): live/shared-answers.ts.
 */
const sharedAnswers: Plugin = {
  onSubscribe: ({ setSubscribeFn }) => setSubscribeFn(subscribeSharingAnswers),
};

/** Any error as the contract's type and status, with GraphQL's location and path, never the request. */
function maskError(error: unknown, services: Services, schema: GraphQLSchema): GraphQLError {
  const located = error instanceof GraphQLError ? error : undefined;
  const api = toApiError(error, requestScope.getStore()?.logger ?? services.logger, schema);
  logDetails({ errorType: api.type });
  const traceId = requestScope.getStore()?.traceId;
  // The error's own extensions (code, field, http, and any other it carries, such as resumeAfter).
  return remade(located, api.message, { ...api.extensions, ...(traceId ? { traceId } : {}) });
}

/**
 * `events`: the live events for subscriptions and the webhook queue for replays, on every GraphQL
 * context. `interpreted`: no query compiled (graphql-jit.ts); `resolvedRows`: no row answered by its
 * statement (schema/core/statement-answers.ts); each for the test that compares the two.
 */
export function createGraphql(
  schema: GraphQLSchema,
  services: Services,
  pipeline: RequestPipeline,
  development: boolean,
  events?: EventServices,
  { interpreted = false, resolvedRows = false }: { interpreted?: boolean; resolvedRows?: boolean } = {},
) {
  const yoga: YogaServerInstance<Initial, Context> = createYoga<Initial, Context>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: development,
    // GraphiQL's page with its scripts and styles inlined from the npm package (no CDN); loaded on
    // first use, so production (no GraphiQL) never reads it.
    renderGraphiQL: async (options) => (await import("@graphql-yoga/render-graphiql")).renderGraphiQL(options),
    landingPage: false,
    logging: false,
    // serveGraphqlHttp has already read the body, bounded by MAX_BODY_BYTES; yoga's own limit would
    // pipe every body through a second stream to count it again.
    maxRequestBodySize: false,
    maskedErrors: { maskError: (error) => maskError(error, services, schema), isDev: false },
    plugins: [
      // Relations make the graph cyclic (region → locations → region …): bound how deep a query may go.
      maxDepthPlugin({ n: MAX_QUERY_DEPTH, exposeLimits: true }),
      maxAliasesPlugin({ n: MAX_ALIASES, exposeLimits: true }),
      costLimitPlugin({ maxCost: MAX_COST, depthCostFactor: COST_DEPTH_FACTOR, exposeLimits: true }),
      characterLimitPlugin({ maxLength: MAX_DOCUMENT_LENGTH, exposeLimits: true }),
      sanitation(schema),
      costBudget(pipeline, services),
      sharedAnswers,
      replicaReads(services),
      keptJsonAnswers,
      textAnswers,
      ...(interpreted ? [] : compiledQueries()),
    ],
    context: async (initial): Promise<Context> => {
      const scope = requestScope.getStore();
      const traceId = initial.traceId ?? scope?.traceId ?? traceIdFrom({});
      // Not admit's request count: every operation spends its cost from the key's budget (costBudget).
      const viewer = initial.viewer ?? (await pipeline.authenticate(credentialsFrom(initial.req?.headers)));
      // Server-sent events resume after the Last-Event-ID header (docs/events.md, "Subscriptions").
      const lastEventId = initial.req?.headers["last-event-id"];
      const withResume = events && typeof lastEventId === "string" ? { ...events, lastEventId } : events;
      return {
        ...services,
        viewer,
        traceId,
        channel: "graphql",
        events: withResume,
        ...(resolvedRows ? {} : { statementAnswers: STATEMENT_ANSWERS }),
      };
    },
  });
  return yoga;
}

/**
 * GraphQL over HTTP: the body is read here up to MAX_BODY_BYTES (a larger one is refused before any
 * parsing), GET's JSON parameters are checked, then an ordinary request is answered directly
 * (serveDirect) and any other by yoga, whose response (JSON, or a stream for server-sent events) is
 * written back as it comes. `throughYoga`: every request through yoga (the test that compares the two).
 */
export async function serveGraphqlHttp(
  yoga: ReturnType<typeof createGraphql>,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
  { throughYoga = false, persisted }: { throughYoga?: boolean; persisted?: PersistedOperations } = {},
) {
  const refuse = (message: string) => {
    const traceId = requestScope.getStore()?.traceId;
    const extensions = { code: "invalidInputDataException", ...(traceId ? { traceId } : {}) };
    writeAnswer(
      req,
      res,
      400,
      { "content-type": "application/json; charset=utf-8" },
      JSON.stringify({ errors: [{ message, extensions }] }),
    );
  };
  let body: string | undefined;
  if (req.method === "POST") {
    try {
      body = await readBody(req, MAX_BODY_BYTES);
    } catch (error) {
      return refuse(error instanceof GraphQLError ? error.message : "the body could not be read");
    }
  }
  for (const name of ["variables", "extensions"]) {
    const value = url.searchParams.get(name);
    if (value === null) continue;
    try {
      JSON.parse(value);
    } catch {
      return refuse(`the ${name} parameter is not valid JSON`);
    }
  }
  if (persisted) {
    const resolved = await persistedRequest(persisted, req, res, url, body);
    if (!resolved) return;
    body = resolved.body;
  }
  if (!throughYoga && (await serveDirect(yoga, req, res, url, body))) return;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
  // A client that goes away ends a streamed answer (the signal); only a request that accepts a stream
  // can get one, so only such a request pays for the signal.
  let signal: AbortSignal | undefined;
  if (STREAMED_ACCEPT.test(headers.accept ?? "")) {
    const abort = new AbortController();
    res.on("close", () => res.writableFinished || abort.abort());
    signal = abort.signal;
  }
  // yoga's own fetch implementation: lighter per request than Node's undici Request.
  const { Request } = yoga.fetchAPI;
  const response = await yoga.handleRequest(new Request(url.href, { method: req.method, headers, body, signal }), {
    req,
  });
  if (!response.body || !STREAMED.test(response.headers.get("content-type") ?? "")) {
    const answer = response.body ? Buffer.from(await response.arrayBuffer()) : "";
    return writeAnswer(req, res, response.status, Object.fromEntries(response.headers), answer);
  }
  res.writeHead(response.status, Object.fromEntries(response.headers));
  // yoga's ReadableStream is its own ponyfill, so it is read as an async iterable.
  const stream = Readable.from(response.body as unknown as AsyncIterable<Uint8Array>);
  const sse = response.headers.get("content-type")?.startsWith("text/event-stream");
  await (sse ? pipe(stream, sseEventIds(), res) : pipe(stream, res)).catch(() => res.destroy());
}

/**
 * A persisted-query request (persisted-operations.ts) made ordinary: its stored document put in the
 * body (POST) or the URL (GET), so both paths serve it as any other. Undefined when it was answered
 * here instead (PersistedQueryNotFound, a hash that does not match). Bodies that cannot be one are not
 * parsed here (the word `persistedQuery` is not in them).
 */
async function persistedRequest(
  persisted: PersistedOperations,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
  body: string | undefined,
): Promise<{ body: string | undefined } | undefined> {
  let params: Record<string, unknown> | undefined;
  if (req.method === "GET" && url.searchParams.get("extensions")?.includes("persistedQuery")) {
    params = { query: url.searchParams.get("query"), extensions: JSON.parse(url.searchParams.get("extensions")!) };
  } else if (req.method === "POST" && body?.includes("persistedQuery")) {
    try {
      const parsed = JSON.parse(body);
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) params = parsed;
    } catch {
      // not JSON: yoga answers it
    }
  }
  if (!params) return { body };
  const resolution = await persisted.resolve(params.query, params.extensions, req.headers);
  if (resolution.kind === "none") return { body };
  if (resolution.kind === "refuse") {
    const traceId = requestScope.getStore()?.traceId;
    const extensions = { code: resolution.code, ...(traceId ? { traceId } : {}) };
    writeAnswer(
      req,
      res,
      resolution.status,
      { "content-type": "application/json; charset=utf-8" },
      JSON.stringify({ errors: [{ message: resolution.message, extensions }] }),
    );
    return undefined;
  }
  if (req.method === "GET") {
    url.searchParams.set("query", resolution.query);
    return { body };
  }
  return { body: JSON.stringify({ ...params, query: resolution.query }) };
}

/** Subscriptions over HTTP answer as a stream (server-sent events, multipart); everything else in one piece. */
const STREAMED = /^(text\/event-stream|multipart\/mixed)/;
/** An Accept header that allows such an answer. */
const STREAMED_ACCEPT = /text\/event-stream|multipart\/mixed/i;

/**
 * An ordinary request (a query, or a mutation by POST, answered in JSON) without yoga's fetch layer:
 * under the location list bench, yoga's Request and Response objects, its HTTP hooks and whatwg-node's
 * server adapter took 12–15% of the service's busy time, against SOFA's 4–7% (docs/performance.md).
 * The GraphQL work is yoga's own, as its processRequest does it (parse, validate, context, execute
 * through getEnveloped, with every plugin), and the answer is made by yoga's JSON result processor, so
 * status, headers and body are yoga's. Declines (false, nothing counted or written) every request yoga
 * might answer otherwise; test/foundation/graphql-direct.test.ts holds the two paths to the same answers.
 */
async function serveDirect(
  yoga: ReturnType<typeof createGraphql>,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
  body: string | undefined,
): Promise<boolean> {
  const accept = req.headers.accept ?? "";
  const mediaType = jsonMediaType(accept);
  // yoga's HTTP hooks that answer by themselves: CORS (a request with an Origin), GraphiQL (text/html),
  // its health check (any URL ending in /health).
  if (!mediaType || req.headers.origin !== undefined || accept.includes("text/html") || url.href.endsWith("/health"))
    return false;
  const params = paramsOf(req, url, body);
  if (!params) return false;
  const enveloped = yoga.getEnveloped({ req });
  let document: DocumentNode;
  let errors: readonly GraphQLError[];
  try {
    document = enveloped.parse(params.query);
    // Subscriptions, mutations by GET and an operation that is not there are refused before validation.
    const operation = getOperationAST(document, params.operationName)?.operation;
    if (operation !== "query" && !(operation === "mutation" && req.method === "POST")) return false;
    errors = enveloped.validate(enveloped.schema, document);
  } catch {
    return false; // a syntax error, graphql-armor's limits (thrown while parsing or validating)
  }
  logDetails({ graphqlDirect: true });
  const result = withContractErrors(errors.length ? { errors } : await execution(enveloped, document, params));
  // yoga's processor is handed a Response class that only keeps what it is given; an answer around kept
  // bytes (a kept chart's, core/kept-json.ts) is kept in its parts, written as they are.
  const parted =
    (result as { stringify?: unknown }).stringify === stringifyToBytes
      ? ({ ...result, stringify: stringifyToParts } as unknown as ExecutionResult)
      : result;
  const answer = processRegularResult(parted, KEEP_RESPONSE, mediaType) as unknown as KeptResponse;
  writeAnswer(req, res, answer.init.status, answer.init.headers, answer.body);
  return true;
}

/** The body is the result's `stringify`'s: a string, or bytes in parts (an answer holding a kept chart's). */
type KeptResponse = { body: string | Buffer[]; init: { status: number; headers: Record<string, string> } };
const KEEP_RESPONSE = {
  Response: class {
    constructor(
      readonly body: string,
      readonly init: KeptResponse["init"],
    ) {}
  },
} as unknown as FetchAPI;

/** yoga's processRequest after validation, with its handling of errors thrown on the way (handleParams). */
async function execution(
  { schema, contextFactory, execute }: ReturnType<ReturnType<typeof createGraphql>["getEnveloped"]>,
  document: DocumentNode,
  params: GraphQLParams,
): Promise<ExecutionResult> {
  let contextValue: Context;
  try {
    contextValue = await contextFactory();
  } catch (error) {
    return { errors: [error as GraphQLError] }; // masked already (useMaskedErrors' context error handler): the 401, the 429
  }
  try {
    return await execute({
      schema,
      document,
      contextValue,
      variableValues: params.variables,
      operationName: params.operationName,
    });
  } catch (error) {
    return { errors: [maskError(error, contextValue, schema)] }; // refused input (the sanitation step)
  }
}

/**
 * The media type yoga answers a single result in, when it is JSON: its result processors (server-sent
 * events, multipart, then the two JSON types) try each Accept entry with UTF-8, and the last match wins,
 * so the first entry that allows JSON decides; undefined when yoga would stream or refuse (406).
 */
function jsonMediaType(accept: string): string | undefined {
  for (const entry of (accept || "*/*").replace(/\s/g, "").toLowerCase().split(",")) {
    const [type, ...parameters] = entry.split(";");
    if ((parameters.find((p) => p.includes("charset=")) ?? "charset=utf-8") !== "charset=utf-8") continue;
    const [group, subtype] = type.split("/");
    if (group !== "*" && group !== "application") continue;
    if (subtype === "*" || subtype === "json") return "application/json";
    if (subtype === "graphql-response+json") return "application/graphql-response+json";
  }
  return undefined;
}

const PARAMETERS = new Set(["query", "variables", "operationName", "extensions"]);
const objectOrNone = (value: unknown) => value == null || (typeof value === "object" && !Array.isArray(value));

/**
 * The GraphQL parameters as yoga reads them (GET: the query string; POST: a JSON object), or undefined
 * for a request yoga refuses or reads otherwise (another content type, bad JSON, a batch, unknown
 * parameters, no query).
 */
function paramsOf(req: http.IncomingMessage, url: URL, body: string | undefined): GraphQLParams | undefined {
  let params: Record<string, unknown>;
  if (req.method === "GET") {
    if (url.hash) return undefined;
    const get = (name: string) => url.searchParams.get(name) || undefined;
    const json = (name: string) => {
      const value = get(name);
      return value === undefined ? undefined : JSON.parse(value); // valid: checked by serveGraphqlHttp
    };
    params = {
      query: get("query"),
      operationName: get("operationName"),
      variables: json("variables"),
      extensions: json("extensions"),
    };
  } else if (req.method === "POST") {
    const type = req.headers["content-type"]?.split(",")[0];
    if (type !== "application/json" && !type?.startsWith("application/json;")) return undefined;
    try {
      params = JSON.parse(body!);
    } catch {
      return undefined;
    }
    if (params === null || typeof params !== "object" || Array.isArray(params)) return undefined;
    if (Object.entries(params).some(([name, value]) => value != null && !PARAMETERS.has(name))) return undefined;
  } else {
    return undefined;
  }
  const { query, variables, extensions } = params;
  return typeof query === "string" && objectOrNone(variables) && objectOrNone(extensions)
    ? (params as unknown as GraphQLParams)
    : undefined;
}

/** Close code of a websocket refused or ended by a live limit (too many connections, too slow a reader). */
const LIMIT_CLOSE_CODE = 4429;

/**
 * graphql-ws on the HTTP server's /graphql; the key comes in connectionParams (X-API-KEY, SVC-KEY).
 * At most `maxConnectionsPerKey` connections of one key at a time (LIVE_MAX_CONNECTIONS_PER_KEY).
 */
export function attachWebsockets(
  server: http.Server,
  yoga: ReturnType<typeof createGraphql>,
  pipeline: RequestPipeline,
  maxConnectionsPerKey: number,
) {
  const wss = new WebSocketServer({ server, path: "/graphql", maxPayload: MAX_BODY_BYTES });
  const connections = perKeyLimit(maxConnectionsPerKey);
  const cleanup = useServer<Record<string, unknown>, { viewer?: Viewer; release?: () => void }>(
    {
      onConnect: async (ctx) => {
        const viewer = await pipeline.identify(credentialsFrom(ctx.connectionParams));
        if (!viewer) return false;
        ctx.extra.release = connections.admit(viewer.keyId);
        if (!ctx.extra.release) {
          ctx.extra.socket.close(LIMIT_CLOSE_CODE, `this key already has ${maxConnectionsPerKey} connections`);
          return false;
        }
        ctx.extra.viewer = viewer;
        return true;
      },
      onClose: (ctx) => ctx.extra.release?.(),
      execute: (args: any) => args.rootValue.execute(args),
      subscribe: (args: any) => args.rootValue.subscribe(args),
      onSubscribe: async (ctx, _id, payload) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          viewer: ctx.extra.viewer,
          traceId: traceIdFrom({}),
        } as Initial);
        let document: DocumentNode;
        let contextValue: Context;
        try {
          document = parse(payload.query);
          const errors = validate(schema, document);
          if (errors.length) return errors;
          checkOperation(document, payload.variables);
          contextValue = await contextFactory();
          if (contextValue.events) {
            const socket = ctx.extra.socket;
            const disconnect = () => socket.close(LIMIT_CLOSE_CODE, "subscriber too slow");
            contextValue.events = { ...contextValue.events, disconnect };
          }
        } catch (error) {
          // A refusal (bad input, the rate limit) ends this operation with the error, not the connection.
          if (error instanceof GraphQLError) return [error];
          throw error;
        }
        return {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue,
          rootValue: { execute, subscribe },
        };
      },
    },
    wss,
  );
  return {
    close: async () => {
      await cleanup.dispose();
      wss.close();
    },
  };
}
