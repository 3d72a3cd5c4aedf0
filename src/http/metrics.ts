// Prometheus metrics (prom-client): request counts and latency by route and status, plus the
// process defaults. One registry per app instance so tests can run several in one process.
import client from "prom-client";

export class Metrics {
  readonly registry = new client.Registry();
  private readonly duration = new client.Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request latency by route and status",
    labelNames: ["method", "route", "status"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  private readonly requests = new client.Counter({
    name: "http_requests_total",
    help: "HTTP requests by route and status",
    labelNames: ["method", "route", "status"],
    registers: [this.registry],
  });

  constructor() {
    client.collectDefaultMetrics({ register: this.registry });
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.duration.observe(labels, seconds);
    this.requests.inc(labels);
  }
}
