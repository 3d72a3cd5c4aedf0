// The request pipeline every channel shares (REST, GraphQL over HTTP, GraphQL over websockets): who is
// calling (the key pair → viewer, else the contract's 401) and whether the key may make another request
// now (the sliding window → RateLimit-* headers, else the contract's 429). The trace id comes from the
// request scope (request-scope.ts), set by the server for every request.
import type { IncomingHttpHeaders } from "node:http";
import type { Services } from "../schema/core/context.ts";
import { rateLimited, unauthorized } from "../schema/core/errors.ts";
import type { Viewer } from "../schema/core/viewer.ts";
import { DEFAULT_RATE_LIMIT, rateLimitHeaders, type RateLimiter } from "./rate-limit.ts";
import { logDetails } from "./request-scope.ts";
import type { ViewerCache } from "./viewer-cache.ts";

export interface Credentials {
  apiKey: string;
  secret: string;
}

/** X-API-KEY and SVC-KEY from node's headers, fetch Headers, or websocket connectionParams (any case). */
export function credentialsFrom(
  source: IncomingHttpHeaders | Headers | Record<string, unknown> | undefined,
): Credentials {
  const read = (name: string): string => {
    if (!source) return "";
    // yoga's own Headers class, so no instanceof.
    if (typeof (source as Headers).get === "function") return (source as Headers).get(name) ?? "";
    const hit = Object.entries(source).find(([k]) => k.toLowerCase() === name);
    const value = Array.isArray(hit?.[1]) ? hit[1][0] : hit?.[1];
    return typeof value === "string" ? value : "";
  };
  return { apiKey: read("x-api-key"), secret: read("svc-key") };
}

export class RequestPipeline {
  constructor(
    private readonly services: Services,
    private readonly viewers: ViewerCache,
    private readonly limiter: RateLimiter,
  ) {}

  /** The key's viewer, or null when the pair does not authenticate. */
  async identify(credentials: Credentials): Promise<Viewer | null> {
    const viewer = await this.viewers.viewer(credentials.apiKey, credentials.secret, this.services.now());
    if (viewer) {
      logDetails({
        keyId: viewer.keyId,
        keyKind: viewer.kind,
        tenant:
          viewer.kind === "buyer"
            ? { buyerCompanyId: viewer.buyerCompanyId }
            : { supplierFacilityId: viewer.supplierFacilityId },
      });
    }
    return viewer;
  }

  /** The key's viewer, or the contract's 401. */
  async authenticate(credentials: Credentials): Promise<Viewer> {
    const viewer = await this.identify(credentials);
    if (!viewer) throw unauthorized();
    return viewer;
  }

  /**
   * Counts one request against the key's window. Returns the RateLimit-* headers to send; beyond the
   * limit, throws the contract's 429 carrying them and Retry-After.
   */
  async admit(viewer: Viewer): Promise<Record<string, string>> {
    const limit = viewer.rateLimit ?? DEFAULT_RATE_LIMIT;
    const result = await this.limiter.hit(viewer.keyId, limit);
    const headers = rateLimitHeaders(result);
    if (!result.allowed) throw rateLimited(limit, result.resetSeconds, headers);
    return headers;
  }
}
