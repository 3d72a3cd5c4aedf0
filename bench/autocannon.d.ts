// The part of autocannon's programmatic API the bench uses (the package ships no types, and
// @types/autocannon is not a dependency). Latencies are in milliseconds, recorded as whole numbers.
declare module "autocannon" {
  interface Options {
    url: string;
    method?: "GET" | "POST";
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Load-generating worker threads (0: the calling thread). */
    workers?: number;
    /** Per-request timeout in seconds. */
    timeout?: number;
  }

  interface Stats {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
    /** Per-second request counts; `total` is the number of completed requests. */
    requests: Stats & { sent: number };
    latency: Stats;
    throughput: Stats;
  }

  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
