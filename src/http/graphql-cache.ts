// HTTP caching of GraphQL answers (docs/api.md, "GraphQL persisted queries and caching"). Only a query
// by GET (a persisted query's usual form) that answered 200 with data and no errors may be kept, and
// only by the client (private: answers depend on the key), for MAX_AGE_SECONDS, varying on the key
// headers and Accept. Its ETag is weak and digests `data` only (extensions.cost changes with every
// request), so If-None-Match gets a 304 without a body when the data is the same; the operation has
// still run and spent its cost. Everything else (POST, mutations, errors) is `no-store`.
import crypto from "node:crypto";
import type http from "node:http";

/** How long a client may reuse a GET query's answer without asking again. */
const MAX_AGE_SECONDS = 10;
/** The request headers a GraphQL answer depends on. */
const VARY = "Accept, X-API-KEY, SVC-KEY";
const NO_STORE = { "cache-control": "no-store" };

/** The caching headers of an answer, and whether the client's copy (If-None-Match) is current. */
function cachingOf(req: http.IncomingMessage, status: number, body: string | Buffer | Buffer[]) {
  if (req.method !== "GET" || status !== 200) return { headers: NO_STORE, notModified: false };
  let answer: { data?: unknown; errors?: unknown };
  try {
    answer = JSON.parse(Array.isArray(body) ? Buffer.concat(body).toString() : body.toString());
  } catch {
    return { headers: NO_STORE, notModified: false };
  }
  if (answer.errors !== undefined || answer.data == null) return { headers: NO_STORE, notModified: false };
  const etag = `W/"${crypto.createHash("sha256").update(JSON.stringify(answer.data)).digest("base64url")}"`;
  const given = req.headers["if-none-match"]?.split(",").map((tag) => tag.trim()) ?? [];
  return {
    headers: { "cache-control": `private, max-age=${MAX_AGE_SECONDS}`, etag, vary: VARY },
    notModified: given.includes(etag) || given.includes("*"),
  };
}

/**
 * A GraphQL answer in one piece (not a stream), or in parts written as one (bytes kept between requests
 * among them), with its caching headers and its length; both HTTP paths write through here.
 */
export function writeAnswer(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string | Buffer | Buffer[],
): void {
  const caching = cachingOf(req, status, body);
  if (caching.notModified) {
    res.writeHead(304, caching.headers);
    return void res.end();
  }
  const parts = Array.isArray(body) ? body : [body];
  const length = parts.reduce((sum, part) => sum + Buffer.byteLength(part), 0);
  res.writeHead(status, { ...headers, "content-length": String(length), ...caching.headers });
  res.cork();
  for (const part of parts) res.write(part);
  res.end();
}
