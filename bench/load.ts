// One bounded load run against one target, with autocannon on loopback. The load is generated in a
// worker thread (autocannon's `workers` option), so it does not share an event loop with the servers
// under test, which live in this process.
import autocannon from "autocannon";
import { callOnce, type ListCall } from "./calls.ts";
import type { StatementCounter } from "./counting-pool.ts";

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface LoadTarget {
  name: string;
  baseUrl: string;
  headers: Record<string, string>;
  call: ListCall;
  /** Rows the page must hold (checked with one request before the load). */
  expectRows: number;
  /** Counts the statements the target's pool sends. */
  counter: StatementCounter;
}

export interface LoadSample {
  target: string;
  round: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Statements sent during the measured run / requests completed (approximate at the edges). */
  statementsPerRequest: number;
}

export async function runLoad(target: LoadTarget, settings: LoadSettings, round: number): Promise<LoadSample> {
  const page = await callOnce(target.baseUrl, target.headers, target.call);
  if (page.data.length !== target.expectRows) {
    throw new Error(`${target.name}: expected ${target.expectRows} rows, got ${page.data.length}`);
  }
  const options = {
    url: `${target.baseUrl}${target.call.path}`,
    method: target.call.method,
    headers: { ...target.headers, ...(target.call.body ? { "content-type": "application/json" } : {}) },
    body: target.call.body,
    connections: settings.connections,
    workers: 1,
    timeout: 10,
  };
  await autocannon({ ...options, duration: settings.warmupSeconds });
  const before = target.counter.statements;
  const result = await autocannon({ ...options, duration: settings.durationSeconds });
  const statements = target.counter.statements - before;

  // Every response must have been a 200: a 429 or a 500 is fast and would flatter the numbers.
  if (result.errors || result.timeouts || result.non2xx) {
    throw new Error(
      `${target.name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx ` +
        `(status codes: ${JSON.stringify(result.statusCodeStats)})`,
    );
  }
  return {
    target: target.name,
    round,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    statementsPerRequest: statements / result.requests.total,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export type LoadMedians = Omit<LoadSample, "target" | "round">;

/** The median of each metric over a target's rounds (metric by metric, not one chosen round). */
export function medians(samples: LoadSample[]): LoadMedians {
  const of = (metric: keyof LoadMedians) => median(samples.map((s) => s[metric]));
  return {
    requestsPerSecond: of("requestsPerSecond"),
    p50Ms: of("p50Ms"),
    p99Ms: of("p99Ms"),
    requests: of("requests"),
    statementsPerRequest: of("statementsPerRequest"),
  };
}
