// A webhook receiver on 127.0.0.1 for the tests that deliver webhooks (events, networks, operator,
// resilience): records every request; can answer 500, or answer late.
import http from "node:http";

interface Receipt {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  status: number;
  json: { event_type: string; data: Record<string, unknown> };
  /** When it arrived (ms since the epoch). */
  at: number;
}

/**
 * A webhook receiver on 127.0.0.1: answers 204, or 500 while `failing` is true, `delayMs` after the
 * request arrived. Records every request.
 */
export async function startReceiver() {
  const receipts: Receipt[] = [];
  const state = { failing: false, delayMs: 0 };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const status = state.failing ? 500 : 204;
      receipts.push({
        path: req.url ?? "",
        headers: req.headers,
        body,
        status,
        json: JSON.parse(body),
        at: Date.now(),
      });
      if (state.delayMs > 0) setTimeout(() => res.writeHead(status).end(), state.delayMs);
      else res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    base,
    receipts,
    state,
    /** Successful receipts of one webhook-id. */
    delivered: (webhookId: string) => receipts.filter((r) => r.headers["webhook-id"] === webhookId && r.status < 300),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
