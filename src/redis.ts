// The one way to open Redis: a plain URL (REDIS_URL), or the current primary of a Sentinel group
// (REDIS_SENTINELS, REDIS_MASTER_NAME), for every use — the rate limiter, the subscriptions' pub/sub,
// the webhook relay's publisher and BullMQ. ioredis asks the Sentinels for the primary on every
// (re)connection and, with failoverDetector, drops the old one as soon as the Sentinels announce a
// switch, so a failover costs the commands in flight, not a restart (docs/operations.md, "Redis failover").
import { Redis, type RedisOptions } from "ioredis";

export interface RedisTarget {
  redisUrl: string;
  /** host:port of each Sentinel; when set, redisUrl is not used. */
  redisSentinels?: { host: string; port: number }[];
  redisMasterName: string;
}

export function connectRedis(target: RedisTarget, options: RedisOptions = {}): Redis {
  if (!target.redisSentinels) return new Redis(target.redisUrl, options);
  return new Redis({
    ...options,
    sentinels: target.redisSentinels,
    name: target.redisMasterName,
    role: "master",
    failoverDetector: true,
  });
}
