// How any REST request becomes a response, in order: trace id → interface → key (401) → route (404)
// → rate limit (429) → JSON body (400) → Idempotency-Key (writes) → SOFA (the root field, its envelope
// or its error body). Auth and rate limiting run here, in front of SOFA, so a bad key gets 401 before
// any body is read. A write with an Idempotency-Key runs in one transaction with its stored answer
// (core/idempotency.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { GraphQLSchema } from "graphql";
import { INTERFACES, type Interface } from "../schema/core/interfaces.ts";
import { ApiError, badInput, errorBody, notFound, unauthorized } from "../schema/core/errors.ts";
import { INTERFACE_OF_KIND } from "../schema/core/viewer.ts";
import type { Services } from "../schema/core/context.ts";
import { once, parseIdempotencyKey, requestFingerprint } from "../schema/core/idempotency.ts";
import { credentialsFrom, type RequestPipeline } from "../http/pipeline.ts";
import { requestScope } from "../http/request-scope.ts";
import { matchRoute, routeTable, type RouteEntry } from "./routes.ts";
import { createSofaRouter, type RestRequest } from "./sofa.ts";
import { openApiDocument, docsPage } from "./openapi.ts";

export const MAX_JSON_BODY_BYTES = 1024 * 1024;

interface InterfaceServer {
  table: RouteEntry[];
  router: ReturnType<typeof createSofaRouter>;
  openapi: () => Promise<unknown>;
}

export class RestAdapter {
  private readonly interfaces: Record<Interface, InterfaceServer>;

  constructor(schemas: Record<Interface, GraphQLSchema>, private readonly services: Services, private readonly pipeline: RequestPipeline) {
    this.interfaces = Object.fromEntries(
      INTERFACES.map((iface) => {
        const table = routeTable(schemas[iface]);
        const router = createSofaRouter(iface, schemas[iface], table);
        let doc: Promise<unknown> | undefined;
        const openapi = () => (doc ??= openApiDocument(iface, router, table));
        return [iface, { table, router, openapi }];
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
    const path = url.pathname.slice(base.length) || "/";
    const server = this.interfaces[iface];
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
      res.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    const fail = (error: ApiError, headers: Record<string, string> = {}) =>
      send(error.status, errorBody(error, scope.traceId), { ...headers, ...((error.extensions.http as any).headers ?? {}) });

    // Documentation is public: integrators read it before they hold a key.
    if (req.method === "GET" && path === "/openapi.json") return send(200, await server.openapi());
    if (req.method === "GET" && path === "/docs") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
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

    const writes = req.method === "POST" || req.method === "PUT" || req.method === "PATCH";
    let body: unknown;
    let idempotencyKey: string | undefined;
    if (writes) {
      try {
        idempotencyKey = parseIdempotencyKey(req.headers["idempotency-key"]);
        const text = await readBody(req, MAX_JSON_BODY_BYTES);
        body = text.trim() ? JSON.parse(text) : undefined;
      } catch (error) {
        return fail(error instanceof ApiError ? error : badInput("the body is not valid JSON"), limitHeaders);
      }
    }

    const context = { ...this.services, viewer, traceId: scope.traceId, channel: iface };
    // The body is parsed once, here: every write route binds it to its `input` argument in sofa.ts, so
    // SOFA only needs the path and query string.
    const run = async (db = this.services.db) => {
      const rest: RestRequest = { context: { ...context, db }, body, query: url.searchParams };
      const response = await server.router.fetch(new Request(url, { method: req.method }), { rest });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => (headers[key] = value));
      return { status: response.status, body: await response.text(), headers };
    };
    if (idempotencyKey === undefined) {
      const answer = await run();
      return send(answer.status, answer.body, { ...limitHeaders, ...answer.headers });
    }
    let answer;
    try {
      answer = await once(
        this.services.db,
        { apiKeyId: viewer.keyId, key: idempotencyKey, fingerprint: requestFingerprint(req.method!, url.pathname + url.search, body), now: this.services.now() },
        run,
      );
    } catch (error) {
      if (error instanceof ApiError) return fail(error, limitHeaders);
      throw error;
    }
    send(answer.status, answer.body, { ...limitHeaders, ...answer.headers, ...(answer.replayed ? { "idempotent-replayed": "true" } : {}) });
  }
}

/** Reads a body up to `limit` bytes; a larger one is drained (so the 400 can still be sent) and refused. */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on("end", () =>
      size > limit ? reject(badInput(`the body is larger than ${limit} bytes`)) : resolve(Buffer.concat(chunks).toString("utf8")),
    );
    req.on("error", reject);
  });
}
