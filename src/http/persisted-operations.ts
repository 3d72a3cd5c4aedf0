// Automatic persisted queries (APQ), Apollo's documented protocol, over POST and GET (docs/api.md,
// "GraphQL persisted queries and caching"): a request names its document by
// `extensions.persistedQuery = {version: 1, sha256Hash}`. With the document as well (`query`), the
// hash is checked and the document stored (registration); without it, the stored document is used,
// or the answer is 404 with the message `PersistedQueryNotFound`, on which a client sends the document
// again. Documents are stored in Redis (shared by every instance) for STORE_TTL_SECONDS after their
// last use; they are not tenant data (any key may use a hash another key registered), and only a key
// that authenticates may register one, no longer than a document may be (MAX_DOCUMENT_LENGTH).
//
// @graphql-yoga/plugin-apq implements the same protocol as a yoga plugin (with a Redis-backed store
// option) and would replace this file; it was not installed when this was written. It works in yoga's
// request parsing, which serveDirect (graphql.ts) bypasses, so this resolves the document first and
// hands both paths an ordinary request.
import crypto from "node:crypto";
import type { Redis } from "ioredis";
import type { IncomingHttpHeaders } from "node:http";
import type { Logger } from "../logger.ts";

/** How long a stored document lives after its last use. */
const STORE_TTL_SECONDS = 7 * 24 * 3600;

/** What the persisted-query extension of a request comes to. */
export type Resolution =
  /** Not a persisted-query request: serve it as it is. */
  | { kind: "none" }
  /** Serve it with this document (a hit; or a registration, stored already). */
  | { kind: "query"; query: string }
  /** Answer this request error instead. */
  | { kind: "refuse"; status: 400 | 404; code: string; message: string };

const refuse = (status: 400 | 404, message: string): Resolution => ({
  kind: "refuse",
  status,
  code: status === 404 ? "NotFoundException" : "invalidInputDataException",
  message,
});

export class PersistedOperations {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
    /** Whether the request's key authenticates (only such a request may register a document). */
    private readonly authenticates: (headers: IncomingHttpHeaders) => Promise<boolean>,
    private readonly maxDocumentLength: number,
  ) {}

  private key(hash: string) {
    return `${this.prefix}:apq:${hash}`;
  }

  /** The request's document by the APQ protocol, from its `query` and `extensions` parameters. */
  async resolve(query: unknown, extensions: unknown, headers: IncomingHttpHeaders): Promise<Resolution> {
    const persisted = (extensions as { persistedQuery?: unknown } | null | undefined)?.persistedQuery;
    if (persisted == null) return { kind: "none" };
    const { version, sha256Hash } = persisted as { version?: unknown; sha256Hash?: unknown };
    if (version !== 1) return refuse(400, "extensions.persistedQuery.version must be 1");
    if (typeof sha256Hash !== "string" || !/^[0-9a-f]{64}$/.test(sha256Hash))
      return refuse(400, "extensions.persistedQuery.sha256Hash must be a SHA-256 digest in lowercase hex");
    if (typeof query === "string" && query !== "") return this.register(sha256Hash, query, headers);
    let stored: string | null;
    try {
      stored = await this.redis.getex(this.key(sha256Hash), "EX", STORE_TTL_SECONDS);
    } catch (err) {
      // Unreachable Redis: the client is told to send the document, which is then served unstored.
      this.logger.warn({ err: (err as Error).message }, "persisted queries unavailable");
      stored = null;
    }
    return stored === null ? refuse(404, "PersistedQueryNotFound") : { kind: "query", query: stored };
  }

  /** A document sent with its hash: checked, stored when the key authenticates, then served. */
  private async register(hash: string, query: string, headers: IncomingHttpHeaders): Promise<Resolution> {
    if (crypto.createHash("sha256").update(query).digest("hex") !== hash)
      return refuse(400, "provided sha does not match query");
    if (query.length <= this.maxDocumentLength && (await this.authenticates(headers))) {
      await this.redis
        .set(this.key(hash), query, "EX", STORE_TTL_SECONDS)
        .catch((err: Error) => this.logger.warn({ err: err.message }, "persisted query not stored"));
    }
    return { kind: "query", query };
  }
}
