// REDIS_SENTINELS and REDIS_MASTER_NAME (src/redis.ts): how the setting is read, and that a connection
// made with it asks the Sentinels for the named primary (the failover itself: test/faults/redis-failover).
import { describe, expect, it } from "vitest";
import { loadConfig, parseSentinels } from "../../src/config.ts";
import { connectRedis } from "../../src/redis.ts";

describe("REDIS_SENTINELS", () => {
  it("reads host:port lists, with Sentinel's port by default, and refuses malformed entries", () => {
    expect(parseSentinels(undefined)).toBeUndefined();
    expect(parseSentinels(" ")).toBeUndefined();
    expect(parseSentinels("10.0.0.1:26379, s2:26380,s3")).toEqual([
      { host: "10.0.0.1", port: 26379 },
      { host: "s2", port: 26380 },
      { host: "s3", port: 26379 },
    ]);
    expect(() => parseSentinels("a:b")).toThrow('REDIS_SENTINELS: "a:b" has no valid port');
    expect(() => parseSentinels(":1")).toThrow("is not host:port");
  });

  it("makes every connection ask the Sentinels for the named primary; without it, REDIS_URL", () => {
    const config = loadConfig({ REDIS_SENTINELS: "127.0.0.1:26379,127.0.0.1:26380", REDIS_MASTER_NAME: "wo" });
    const viaSentinels = connectRedis(config, { lazyConnect: true });
    expect(viaSentinels.options).toMatchObject({
      sentinels: [
        { host: "127.0.0.1", port: 26379 },
        { host: "127.0.0.1", port: 26380 },
      ],
      name: "wo",
      role: "master",
      failoverDetector: true,
    });
    const duplicate = viaSentinels.duplicate();
    expect(duplicate.options.sentinels).toEqual(viaSentinels.options.sentinels);
    const direct = connectRedis(loadConfig({ REDIS_URL: "redis://127.0.0.1:6390" }), { lazyConnect: true });
    expect(direct.options.sentinels).toBeNull();
    expect(direct.options.port).toBe(6390);
    for (const r of [viaSentinels, duplicate, direct]) r.disconnect();
  });
});
