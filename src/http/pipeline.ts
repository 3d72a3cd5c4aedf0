// The request pipeline every channel shares (REST, GraphQL over HTTP, GraphQL over websockets): who is
// calling (the key pair → viewer, else the contract's 401) and whether the key may make another request
// now (the sliding window → RateLimit-* headers, else the contract's 429; for GraphQL operations, the
// points budget of graphql-budget.ts instead). The trace id comes from the request scope
// (request-scope.ts), set by the server for every request.
import type { IncomingHttpHeaders } from "node:http";
import type { Services } from "../schema/core/context.ts";
import { ApiError, badInput, rateLimited, unauthorized } from "../schema/core/errors.ts";
import type { Viewer } from "../schema/core/viewer.ts";
import { DEFAULT_RATE_LIMIT, rateLimitHeaders, type RateLimiter } from "./rate-limit.ts";
import { logDetails } from "./request-scope.ts";
import type { ViewerCache } from "./viewer-cache.ts";
import { DEFAULT_GRAPHQL_BUDGET, type PointsBudget } from "./graphql-budget.ts";

/** What a GraphQL answer reports in `extensions.cost` (docs/api.md, "GraphQL cost and budget"). */
export interface CostReport {
  /** The operation's cost in points (graphql-cost.ts). */
  requested: number;
  /** The key's budget: points per window. */
  limit: number;
  windowSeconds: number;
  /** Points left in the window after this operation (RateLimit-Reset says when the oldest spend leaves it). */
  remaining: number;
}

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
    private readonly budget: PointsBudget,
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

  /**
   * Spends a GraphQL operation's cost from the key's points budget (GraphQL's rate limit, instead of
   * admit's request count). Returns the cost report and the RateLimit-* headers, in points. An operation
   * over what is left of the budget throws the contract's 429 with Retry-After (when it will fit); one
   * that costs more than the whole budget is a 400, since waiting would not help.
   */
  async spend(viewer: Viewer, cost: number): Promise<{ report: CostReport; headers: Record<string, string> }> {
    const budget = viewer.graphqlBudget ?? DEFAULT_GRAPHQL_BUDGET;
    const per = `${budget.points} points per ${budget.windowSeconds} s`;
    if (cost > budget.points) {
      throw badInput(`this operation costs ${cost} points, more than the key's GraphQL budget of ${per}`);
    }
    const result = await this.budget.spend(viewer.keyId, cost, budget);
    const headers = rateLimitHeaders(result);
    if (!result.allowed) {
      throw new ApiError(
        429,
        "TooManyRequestsException",
        `GraphQL budget of ${per} exceeded: this operation costs ${cost} points and ${result.remaining} are left; retry after ${result.resetSeconds} s`,
        { ...headers, "Retry-After": String(result.resetSeconds) },
      );
    }
    const { limit, remaining } = result;
    return { report: { requested: cost, limit, windowSeconds: budget.windowSeconds, remaining }, headers };
  }
}
