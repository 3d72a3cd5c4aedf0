// What two instances of the service answered, compared byte for byte by the tests of the direct paths
// (graphql-direct.test.ts, rest-direct.test.ts): the status, the raw headers in order and the body, with
// only what differs between two runs left out (Date; the seconds of a rate-limit window, which tick
// between the two requests of a pair), and the request's log line.
import http from "node:http";
import { expect } from "vitest";
import type { TestApp } from "./app.ts";

export interface Answer {
  status: number;
  /** [name, value] as sent, in order; Date left out, the rate limit's seconds replaced. */
  headers: [string, string][];
  body: string;
}

/** Seconds until the rate-limit window moves on: they tick between the two requests of a pair. */
const SECONDS_HEADERS = new Set(["ratelimit-reset", "retry-after"]);

const seconds = (value: string) => (/^\d+$/.test(value) ? "<seconds>" : `not a number of seconds: ${value}`);

export function rawRequest(url: string, options: { method: string; headers: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: options.method, headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const raw = response.rawHeaders;
        const pairs: [string, string][] = [];
        for (let i = 0; i < raw.length; i += 2) {
          const name = raw[i].toLowerCase();
          if (name === "date") continue;
          pairs.push([raw[i], SECONDS_HEADERS.has(name) ? seconds(raw[i + 1]) : raw[i + 1]]);
        }
        const text = Buffer.concat(chunks).toString("utf8").replace(/retry after \d+ s/g, (m) => m.replace(/\d+/, seconds));
        resolve({ status: response.statusCode!, headers: pairs, body: text });
      });
    });
    request.on("error", reject);
    request.end(options.body);
  });
}

/**
 * The request's log line (written when the response closes, which can be just after the client has
 * read it) without what differs between two runs: time, duration, process.
 */
export async function logLine(app: TestApp, traceId: string) {
  const find = () => app.logs.find((l) => l.msg === "request" && l.traceId === traceId);
  for (let waited = 0; !find() && waited < 2_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(find(), `log line of ${traceId}`).toBeDefined();
  const { time, ms, pid, hostname, ...rest } = find()!;
  return rest;
}
