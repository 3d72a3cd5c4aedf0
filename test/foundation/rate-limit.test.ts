// The rate limit: 10 requests per sliding 20 s per key, shared through Redis by every instance.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
beforeAll(async () => (t = await startTestApp()));
afterAll(() => t?.close());

describe("rate limiting", () => {
  it("allows 10 requests per 20 s, then 429 with Retry-After, counted across two instances", async () => {
    const second = await t.secondInstance();
    const headers = t.headers("acme-key-default-limit");
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 12; i++) {
      // Alternate between the instances: the window is shared through Redis.
      last = await fetch(`${i % 2 ? second.url : t.url}/v1/buyer/location/locations`, { headers });
      statuses.push(last.status);
      if (i === 0) {
        expect(last.headers.get("ratelimit-limit")).toBe("10");
        expect(last.headers.get("ratelimit-remaining")).toBe("9");
        expect(Number(last.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
        expect(Number(last.headers.get("ratelimit-reset"))).toBeLessThanOrEqual(20);
      }
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
    const body = await last!.json();
    expect(body).toMatchObject({ type: "TooManyRequestsException", status: "error" });
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(last!.headers.get("ratelimit-remaining")).toBe("0");
    await second.close();
  });

  it("does not count or limit ping", async () => {
    const headers = t.headers("acme-key-default-limit");
    const replies = await Promise.all(Array.from({ length: 15 }, () => fetch(`${t.url}/v1/buyer/ping`, { headers })));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(replies[0].headers.get("ratelimit-limit")).toBeNull();
  });

  it("keeps keys apart and honours a per-key limit set by the operator", async () => {
    const other = await t.call("acme-key", "GET", "/v1/buyer/location/locations");
    expect(other.status).toBe(200);
    expect(other.headers.get("ratelimit-limit")).toBe("1000");
  });

  it("frees the window as requests age out of it", async () => {
    const key = await t.db.apiKey.update({
      where: { apiKey: t.fixture.keys["globex-key"].apiKey },
      data: { rateLimitRequests: 2, rateLimitWindowSeconds: 1 },
    });
    expect(key.rateLimitRequests).toBe(2);
    await t.keyChangesSeen();
    const hit = () => t.call("globex-key", "GET", "/v1/buyer/me").then((r) => r.status);
    expect([await hit(), await hit(), await hit()]).toEqual([200, 200, 429]);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await hit()).toBe(200);
  });
});
