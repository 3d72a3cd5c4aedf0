// The contract's rate limit: a sliding window per key (10 requests per 20 s unless the operator set
// another limit on the key), kept in Redis so every API instance shares it. A sliding log in one
// sorted set per key, updated atomically by a Lua script that uses Redis's clock, so instances with
// skewed clocks still agree.
import type { Redis } from "ioredis";
import type { Logger } from "../logger.ts";

const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, now .. '-' .. ARGV[3])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
return { allowed, count, tonumber(oldest or now) + window - now }
`;

export const DEFAULT_RATE_LIMIT = { requests: 10, windowSeconds: 20 };

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest request in the window leaves it. */
  resetSeconds: number;
}

/**
 * While Redis is unreachable the limiter fails open (the request is allowed and a warning logged):
 * an outage of the limiter's store should not become an outage of the API.
 */
export class RateLimiter {
  private sequence = 0;
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {
    redis.defineCommand("slidingWindowHit", { numberOfKeys: 1, lua: SCRIPT });
  }

  async hit(keyId: number, limit = DEFAULT_RATE_LIMIT): Promise<RateLimitResult> {
    const member = `${process.pid}-${++this.sequence}-${Math.random().toString(36).slice(2, 8)}`;
    let allowed: number, count: number, resetMs: number;
    try {
      [allowed, count, resetMs] = (await (this.redis as any).slidingWindowHit(
        `${this.prefix}:ratelimit:${keyId}`,
        limit.windowSeconds * 1000,
        limit.requests,
        member,
      )) as [number, number, number];
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, keyId }, "rate limiter unavailable; allowing the request");
      return { allowed: true, limit: limit.requests, remaining: limit.requests, resetSeconds: limit.windowSeconds };
    }
    return {
      allowed: allowed === 1,
      limit: limit.requests,
      remaining: Math.max(0, limit.requests - count),
      resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
    };
  }
}

export function rateLimitHeaders(r: RateLimitResult): Record<string, string> {
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(r.limit),
    "RateLimit-Remaining": String(r.remaining),
    "RateLimit-Reset": String(r.resetSeconds),
  };
  if (!r.allowed) headers["Retry-After"] = String(r.resetSeconds);
  return headers;
}
