// GraphQL's rate limit: each key spends points (the operation's cost, graphql-cost.ts) from a budget per
// sliding window, 5000 points per 20 s unless the operator set another budget on the key (docs/api.md,
// "GraphQL cost and budget"). REST keeps its request count (rate-limit.ts). Like REST's window it is a
// sliding log in one sorted set per key in Redis (every instance shares it), each entry scored by its
// time and named with its points, updated atomically by a Lua script on Redis's clock. An operation
// that does not fit is not recorded, and is told when enough of the window will have aged out for it.
import type { Redis } from "ioredis";
import type { Logger } from "../logger.ts";

// The window's total is kept beside it (KEYS[2]) and lowered by what ages out, so an operation costs
// Redis the entries that expire, not a sum over the whole window (up to thousands of entries per key).
// A total that outlived its window (the set expired first) counts as nothing.
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local budget = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local points = function(entry) return tonumber(string.match(entry, '^(%d+):')) end
local spent = tonumber(redis.call('GET', KEYS[2]) or '0')
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - window)
for i = 1, #expired do spent = spent - points(expired[i]) end
if #expired > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window) end
if redis.call('ZCARD', KEYS[1]) == 0 then spent = 0 end
if spent + cost <= budget then
  redis.call('ZADD', KEYS[1], now, cost .. ':' .. ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  redis.call('SET', KEYS[2], spent + cost, 'PX', window)
  local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  return { 1, spent + cost, oldest + window - now }
end
if #expired > 0 then redis.call('SET', KEYS[2], spent, 'PX', window) end
local entries = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local freed = 0
local at = now
for i = 1, #entries, 2 do
  freed = freed + points(entries[i])
  if spent + cost - freed <= budget then at = tonumber(entries[i + 1]) break end
end
return { 0, spent, at + window - now }
`;

export interface GraphqlBudget {
  points: number;
  windowSeconds: number;
}

/**
 * About what REST's 10 requests per 20 s cost when each is a full page: a 25-row work order page with
 * its status changes and service calls costs 1 + 25 × (1 + 10 + 10) = 526 points.
 */
export const DEFAULT_GRAPHQL_BUDGET: GraphqlBudget = { points: 5000, windowSeconds: 20 };

export interface SpendResult {
  allowed: boolean;
  /** The key's budget (points per window). */
  limit: number;
  /** Points left in the window after this operation (allowed) or as they are (refused). */
  remaining: number;
  /** Allowed: seconds until the oldest spend leaves the window; refused: until this operation fits. */
  resetSeconds: number;
}

/** While Redis is unreachable the budget fails open (allowed, a warning logged), like REST's limiter. */
export class PointsBudget {
  private sequence = 0;
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {
    redis.defineCommand("graphqlBudgetSpend", { numberOfKeys: 2, lua: SCRIPT });
  }

  async spend(keyId: number, cost: number, budget: GraphqlBudget): Promise<SpendResult> {
    const member = `${process.pid}-${++this.sequence}-${Math.random().toString(36).slice(2, 8)}`;
    let allowed: number, spent: number, resetMs: number;
    try {
      [allowed, spent, resetMs] = (await (this.redis as any).graphqlBudgetSpend(
        `${this.prefix}:graphqlbudget:${keyId}`,
        `${this.prefix}:graphqlbudget:${keyId}:total`,
        budget.windowSeconds * 1000,
        budget.points,
        cost,
        member,
      )) as [number, number, number];
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, keyId }, "GraphQL budget unavailable; allowing the operation");
      return { allowed: true, limit: budget.points, remaining: budget.points, resetSeconds: budget.windowSeconds };
    }
    return {
      allowed: allowed === 1,
      limit: budget.points,
      remaining: Math.max(0, budget.points - spent),
      resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
    };
  }
}
