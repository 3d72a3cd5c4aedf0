// How any REST request becomes a response, in order: trace id → interface → key (401) → route (404)
// → rate limit (429) → input checks (400) → JSON body (400), or for routes that declare `upload` the
// multipart stream (multipart.ts) → Idempotency-Key (JSON writes) → SOFA (the root field, its envelope
// or its error body; routes that declare `download` answer with the file's bytes). Auth and rate
// limiting run here, in front of SOFA, so a bad key gets 401 before any body is read. A write with an
// Idempotency-Key runs in one transaction with its stored answer (core/idempotency.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { Request } from "@whatwg-node/fetch";
import { getNamedType, type GraphQLSchema } from "graphql";
import { INTERFACES, type Interface, readsFromReplica } from "../schema/core/interfaces.ts";
import { ApiError, badInput, errorBody, notFound, unauthorized } from "../schema/core/errors.ts";
import { INTERFACE_OF_KIND } from "../schema/core/viewer.ts";
import type { Context, Services } from "../schema/core/context.ts";
import type { Download } from "../schema/core/files.ts";
import { once, parseIdempotencyKey, requestFingerprint } from "../schema/core/idempotency.ts";
import { credentialsFrom, type RequestPipeline } from "../http/pipeline.ts";
import { logDetails, requestScope, STATEMENT_ANSWERS } from "../http/request-scope.ts";
import { matchRoute, paramsOf, routeTable, type RouteEntry } from "./routes.ts";
import { isInt32 } from "../schema/core/list.ts";
import { createSofaServer, type RestAnswer, type RestRequest, type SofaServer } from "./sofa.ts";
import { openApiDocument, docsPage, DOCS_PAGE_CSP } from "./openapi.ts";
import { checkJson, checkQuery, checkText, MAX_BODY_BYTES, readBody } from "../http/input.ts";
import { receiveMultipart, type ReceivedUpload } from "./multipart.ts";

interface InterfaceServer {
  schema: GraphQLSchema;
  table: RouteEntry[];
  sofa: SofaServer;
  openapi: () => unknown;
}

export interface RestOptions {
  /** A cap below every upload route's own limit (UPLOAD_MAX_BYTES). */
  uploadMaxBytes?: number;
  /** GET routes through SOFA's router too (Config.restThroughSofa; tests only). */
  throughSofa?: boolean;
  /** No row answered by its statement (Config.resolvedRows; tests only). */
  resolvedRows?: boolean;
}

export class RestAdapter {
  private readonly interfaces: Record<Interface, InterfaceServer>;

  constructor(
    schemas: Record<Interface, GraphQLSchema>,
    private readonly services: Services,
    private readonly pipeline: RequestPipeline,
    private readonly options: RestOptions = {},
  ) {
    this.interfaces = Object.fromEntries(
      INTERFACES.map((iface) => {
        const table = routeTable(schemas[iface]);
        const sofa = createSofaServer(iface, schemas[iface], table);
        let doc: unknown;
        const openapi = () => (doc ??= openApiDocument(iface, schemas[iface], table));
        return [iface, { schema: schemas[iface], table, sofa, openapi }];
      }),
    ) as Record<Interface, InterfaceServer>;
  }

  /** The interface a path belongs to, or undefined when it is not a REST path. */
  interfaceOf(path: string): Interface | undefined {
    const match = /^\/v1\/(buyer|supplier|partners)(\/|$)/.exec(path);
    return match?.[1] as Interface | undefined;
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL, iface: Interface): Promise<void> {
    const scope = requestScope.getStore()!;
    const base = `/v1/${iface}`;
    // A trailing slash routes like the path without it.
    if (url.pathname.length > base.length + 1 && url.pathname.endsWith("/")) url.pathname = url.pathname.slice(0, -1);
    const path = url.pathname.slice(base.length) || "/";
    const server = this.interfaces[iface];
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
      res.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    const fail = (error: ApiError, headers: Record<string, string> = {}) => {
      logDetails({ errorType: error.type });
      send(error.status, errorBody(error, scope.traceId), {
        ...headers,
        ...((error.extensions.http as any).headers ?? {}),
      });
    };

    // Documentation is public: integrators read it before they hold a key.
    if (req.method === "GET" && path === "/openapi.json") return send(200, server.openapi());
    if (req.method === "GET" && path === "/docs") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": DOCS_PAGE_CSP });
      return void res.end(docsPage(iface));
    }

    const viewer = await this.pipeline.identify(credentialsFrom(req.headers));
    if (!viewer || INTERFACE_OF_KIND[viewer.kind] !== iface) {
      // A valid key of another interface is as good as no key here.
      return fail(unauthorized(viewer ? `this key is not valid on ${base}` : undefined));
    }

    const entry = matchRoute(server.table, req.method ?? "GET", path);
    if (!entry) return fail(notFound(`no route ${req.method} ${url.pathname}`));
    scope.route = `${base}${entry.route.path}`;

    let limitHeaders: Record<string, string> = {};
    if (entry.route.rateLimited !== false) {
      try {
        limitHeaders = await this.pipeline.admit(viewer);
      } catch (error) {
        return fail(error as ApiError);
      }
    }

    const params = paramsOf(entry, path);
    let input: RequestInput;
    try {
      input = await readInput(req, url, path, server.schema, entry, params, this.options.uploadMaxBytes);
    } catch (error) {
      // An upload's body is not read: close the connection rather than receive it.
      return fail(error as ApiError, { ...limitHeaders, ...(entry.route.upload ? { connection: "close" } : {}) });
    }

    let download: Download | undefined;
    const context: Context = {
      ...this.services,
      viewer,
      traceId: scope.traceId,
      channel: iface,
      upload: input.upload?.upload,
      ...(this.options.resolvedRows ? {} : { statementAnswers: STATEMENT_ANSWERS }),
    };
    if (entry.route.download) context.download = (file) => (download = file);
    const readDb = readsFromReplica(entry.route) ? this.services.readDb?.() : undefined;
    const run = (db = readDb ?? this.services.db) =>
      this.execute(server, entry, params, req, url, {
        context: { ...context, db },
        body: input.body,
        query: url.searchParams,
      });
    if (input.idempotencyKey === undefined) {
      const answer = await run();
      if (input.upload?.finish()) answer.headers.connection = "close";
      if (download) {
        if (answer.status === 200) return sendFile(res, download, limitHeaders);
        download.stream.destroy();
      }
      return send(answer.status, answer.body, { ...limitHeaders, ...answer.headers });
    }
    let answer;
    try {
      answer = await once(
        this.services.db,
        {
          apiKeyId: viewer.keyId,
          key: input.idempotencyKey,
          fingerprint: requestFingerprint(req.method!, url.pathname + url.search, input.body),
          now: this.services.now(),
        },
        run,
      );
    } catch (error) {
      if (error instanceof ApiError) return fail(error, limitHeaders);
      throw error;
    }
    send(answer.status, answer.body, {
      ...limitHeaders,
      ...answer.headers,
      ...(answer.replayed ? { "idempotent-replayed": "true" } : {}),
    });
  }

  /**
   * Runs the route's root field. The body was parsed once, in readInput: every write route binds it to
   * its `input` argument in sofa.ts, so SOFA only needs the path and query string. A GET whose path has
   * no %-escapes (SOFA decodes those its own way) skips SOFA's fetch layer.
   */
  private async execute(
    server: InterfaceServer,
    entry: RouteEntry,
    params: Record<string, string>,
    req: IncomingMessage,
    url: URL,
    rest: RestRequest,
  ): Promise<RestAnswer> {
    const direct = req.method === "GET" && !this.options.throughSofa && !url.pathname.includes("%");
    const answered = direct ? server.sofa.direct(entry, params, url.search, rest) : undefined;
    if (answered) {
      logDetails({ restDirect: true });
      return answered;
    }
    // The fetch ponyfill SOFA's server works with: lighter per request than Node's undici Request.
    const response = await server.sofa.router.fetch(new Request(url.href, { method: req.method }), { rest });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      headers[key] = value;
    });
    return { status: response.status, body: await response.text(), headers };
  }
}

/** What a request sends, read and checked before its root field runs. */
interface RequestInput {
  /** A write's JSON body (undefined when empty). */
  body?: unknown;
  /** An upload route's multipart stream. */
  upload?: ReceivedUpload;
  idempotencyKey?: string;
}

/**
 * The input checks, in order: the path, the query string, the declared arguments' types, a write's
 * Idempotency-Key; then the JSON body of a write (1 MiB at most), or an upload route's multipart stream.
 * Throws the 400 to answer.
 */
async function readInput(
  req: IncomingMessage,
  url: URL,
  path: string,
  schema: GraphQLSchema,
  entry: RouteEntry,
  params: Record<string, string>,
  uploadMaxBytes = Infinity,
): Promise<RequestInput> {
  const writes = req.method === "POST" || req.method === "PUT" || req.method === "PATCH";
  checkText(safeDecode(path), "the path");
  checkQuery(url.searchParams);
  checkArguments(schema, entry, params, url.searchParams);
  const idempotencyKey = writes ? parseIdempotencyKey(req.headers["idempotency-key"]) : undefined;
  const { upload } = entry.route;
  if (upload) {
    if (idempotencyKey !== undefined) {
      throw badInput(
        "Idempotency-Key is not taken on multipart uploads (the file is streamed, not held to compare); retry the upload itself",
        "Idempotency-Key",
      );
    }
    return {
      upload: receiveMultipart(req, { field: upload.field, maxBytes: Math.min(upload.maxBytes, uploadMaxBytes) }),
    };
  }
  return { idempotencyKey, body: writes ? await readJsonBody(req) : undefined };
}

/** A write's body as JSON (undefined when empty), within MAX_BODY_BYTES. */
async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  try {
    const text = await readBody(req, MAX_BODY_BYTES);
    let body: unknown;
    try {
      body = text.trim() ? JSON.parse(text) : undefined;
    } catch {
      throw badInput("the body is not valid JSON");
    }
    checkJson(body, "");
    return body;
  } catch (error) {
    throw error instanceof ApiError ? error : badInput("the body could not be read");
  }
}

/**
 * Path parameters and declared query arguments against their GraphQL types, before SOFA converts them
 * (whose errors could not say which parameter was wrong).
 */
function checkArguments(
  schema: GraphQLSchema,
  entry: RouteEntry,
  params: Record<string, string>,
  query: URLSearchParams,
): void {
  const root = entry.operation === "query" ? schema.getQueryType() : schema.getMutationType();
  for (const arg of root?.getFields()[entry.field]?.args ?? []) {
    const raw = params[arg.name] ?? query.get(arg.name);
    if (raw === null || raw === undefined || arg.name === entry.route.bodyArg) continue;
    const type = getNamedType(arg.type).name;
    if (type === "Int" && !(/^-?\d{1,10}$/.test(raw.trim()) && isInt32(Number(raw))))
      throw badInput(`${arg.name} must be a whole number, got ${JSON.stringify(raw)}`, arg.name);
    if (type === "Float" && !(raw.trim() !== "" && Number.isFinite(Number(raw))))
      throw badInput(`${arg.name} must be a number, got ${JSON.stringify(raw)}`, arg.name);
    if (type === "Boolean" && raw !== "true" && raw !== "false")
      throw badInput(`${arg.name} must be true or false, got ${JSON.stringify(raw)}`, arg.name);
  }
}

/** The path with %-escapes decoded (as SOFA will), or as it is when they are malformed (SOFA's 404 then). */
function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** A file's bytes as an attachment; never rendered by the browser as a page of this origin. */
async function sendFile(res: ServerResponse, file: Download, headers: Record<string, string>): Promise<void> {
  const ascii = file.name.replace(/[^\x20-\x7e]|["\\]/g, "_") || "file";
  const utf8 = encodeURIComponent(file.name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  ); // RFC 8187
  res.writeHead(200, {
    ...headers,
    "content-type": file.contentType,
    "content-length": String(file.size),
    "content-disposition": `attachment; filename="${ascii}"; filename*=UTF-8''${utf8}`,
    "x-content-type-options": "nosniff",
    "cache-control": "private, no-store",
  });
  // A client that goes away mid-download ends the pipeline; nothing to answer then.
  await pipeline(file.stream, res).catch(() => res.destroy());
}
