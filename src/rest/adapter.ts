// How any REST request becomes a response, in order: trace id → interface → key (401) → route (404)
// → rate limit (429) → JSON body (400), or for routes that declare `upload` the multipart stream
// (multipart.ts) → SOFA (the root field, its envelope or its error body; routes that declare
// `download` answer with the file's bytes). Auth and rate limiting run here, in front of SOFA, so a
// bad key gets 401 before any body is read.
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import type { GraphQLSchema } from "graphql";
import { INTERFACES, type Interface } from "../schema/core/interfaces.ts";
import { ApiError, badInput, errorBody, notFound, unauthorized } from "../schema/core/errors.ts";
import { INTERFACE_OF_KIND } from "../schema/core/viewer.ts";
import type { Context, Services } from "../schema/core/context.ts";
import type { Download } from "../schema/core/files.ts";
import { credentialsFrom, type RequestPipeline } from "../http/pipeline.ts";
import { requestScope } from "../http/request-scope.ts";
import { matchRoute, routeTable, type RouteEntry } from "./routes.ts";
import { createSofaRouter, type RestRequest } from "./sofa.ts";
import { openApiDocument, docsPage } from "./openapi.ts";
import { receiveMultipart, type ReceivedUpload } from "./multipart.ts";

export const MAX_JSON_BODY_BYTES = 1024 * 1024;

interface InterfaceServer {
  table: RouteEntry[];
  router: ReturnType<typeof createSofaRouter>;
  openapi: () => Promise<unknown>;
}

export interface RestOptions {
  /** A cap below every upload route's own limit (UPLOAD_MAX_BYTES). */
  uploadMaxBytes?: number;
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

    let body: unknown;
    let upload: ReceivedUpload | undefined;
    if (entry.route.upload) {
      const maxBytes = Math.min(entry.route.upload.maxBytes, this.options.uploadMaxBytes ?? Infinity);
      try {
        upload = receiveMultipart(req, { field: entry.route.upload.field, maxBytes });
      } catch (error) {
        // The body is not read: close the connection rather than receive it.
        return fail(error as ApiError, { ...limitHeaders, connection: "close" });
      }
    } else if (req.method === "POST" || req.method === "PUT" || req.method === "PATCH") {
      try {
        const text = await readBody(req, MAX_JSON_BODY_BYTES);
        body = text.trim() ? JSON.parse(text) : undefined;
      } catch (error) {
        return fail(error instanceof ApiError ? error : badInput("the body is not valid JSON"), limitHeaders);
      }
    }

    let download: Download | undefined;
    const context: Context = { ...this.services, viewer, traceId: scope.traceId, channel: iface, upload: upload?.upload };
    if (entry.route.download) context.download = (file) => (download = file);
    const rest: RestRequest = { context, body, query: url.searchParams };
    // The body is parsed once, here: every write route binds it to its `input` argument in sofa.ts, so
    // SOFA only needs the path and query string.
    const request = new Request(url, { method: req.method });
    const response = await server.router.fetch(request, { rest });
    const headers: Record<string, string> = { ...limitHeaders };
    response.headers.forEach((value, key) => (headers[key] = value));
    if (upload?.finish()) headers.connection = "close";
    if (download) {
      if (response.status === 200) return sendFile(res, download, limitHeaders);
      download.stream.destroy();
    }
    send(response.status, await response.text(), headers);
  }
}

/** A file's bytes as an attachment; never rendered by the browser as a page of this origin. */
async function sendFile(res: ServerResponse, file: Download, headers: Record<string, string>): Promise<void> {
  const ascii = file.name.replace(/[^\x20-\x7e]|["\\]/g, "_") || "file";
  const utf8 = encodeURIComponent(file.name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`); // RFC 8187
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
