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

/** "a:26379,b:26380" → [{host: "a", port: 26379}, …]; a bare host gets Sentinel's port 26379. */
export function parseSentinels(value: string | undefined): { host: string; port: number }[] | undefined {
  if (!value?.trim()) return undefined;
  return value.split(",").map((entry) => {
    const [host, port] = entry.trim().split(":");
    if (!host) throw new Error(`REDIS_SENTINELS: "${entry}" is not host:port`);
    const number = Number(port ?? 26379);
    if (!Number.isInteger(number) || number <= 0) throw new Error(`REDIS_SENTINELS: "${entry}" has no valid port`);
    return { host, port: number };
  });
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
