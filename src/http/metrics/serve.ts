// A metrics-only HTTP listener (METRICS_PORT): how a worker-only process (ROLES=worker), which has no
// API server, shows Prometheus its counters. It answers GET /metrics and GET /healthz, nothing else.
import http from "node:http";
import type { Logger } from "../../logger.ts";
import type { Metrics } from "./registry.ts";

export async function serveMetrics(metrics: Metrics, port: number, logger: Logger) {
  const server = http.createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method === "GET" && path === "/metrics") {
      try {
        const body = await metrics.registry.metrics();
        res.writeHead(200, { "content-type": metrics.registry.contentType }).end(body);
      } catch (err) {
        logger.warn({ err: (err as Error).message }, "metrics: scrape failed");
        res.writeHead(500, { "content-type": "text/plain" }).end("metrics unavailable\n");
      }
      return;
    }
    if (req.method === "GET" && path === "/healthz")
      return void res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
    res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as { port: number }).port;
  logger.info({ port: bound }, "metrics listening");
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
