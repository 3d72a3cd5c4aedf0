// Bull Board at /admin/queues: the mail and webhooks queues, for the operator. Behind OPERATOR_TOKEN
// (`Authorization: Bearer <token>`, or Basic with the token as password for browsers; else 401); not
// mounted at all (404) when OPERATOR_TOKEN is unset. Retries are off for the webhooks queue: a webhook
// job only hands a delivery row over (use `operator webhooks redeliver`; docs/events.md).
import crypto from "node:crypto";
import type http from "node:http";
import type { Redis } from "ioredis";
import type { Logger } from "../logger.ts";
import { mailQueue } from "../schema/mail/public.ts";
import { webhookQueue } from "../schema/webhooks/public.ts";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";

export const BULL_BOARD_PATH = "/admin/queues";

/**
 * `Bearer <token>`; also HTTP Basic with the token as the password, because a browser sends no bearer
 * token with the board's own page and asset requests but does repeat Basic credentials it prompted for.
 */
function tokenMatches(header: string | undefined, token: string): boolean {
  const [scheme = "", value = ""] = (header ?? "").split(" ", 2);
  let given = "";
  if (scheme.toLowerCase() === "bearer") given = value;
  else if (scheme.toLowerCase() === "basic") {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    given = decoded.slice(decoded.indexOf(":") + 1);
  }
  // Compare digests: constant time whatever the lengths.
  const digest = (s: string) => crypto.createHash("sha256").update(s).digest();
  return given !== "" && crypto.timingSafeEqual(digest(given), digest(token));
}

export function createQueueBoard(redis: Redis, prefix: string, token: string, logger: Logger) {
  const queues = [mailQueue(redis, prefix), webhookQueue(redis, prefix)];
  for (const q of queues) q.on("error", (err) => logger.warn({ err: err.message, queue: q.name }, "bull board queue error"));
  const serverAdapter = new ExpressAdapter().setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: [new BullMQAdapter(queues[0]), new BullMQAdapter(queues[1], { allowRetries: false })],
    serverAdapter,
    options: { uiConfig: { boardTitle: "wo-service queues" } },
  });
  const app = serverAdapter.getRouter() as (req: http.IncomingMessage, res: http.ServerResponse, next: (err?: unknown) => void) => void;

  return {
    /** Whether the path is the board's; the caller answers everything else. */
    owns: (pathname: string) => pathname === BULL_BOARD_PATH || pathname.startsWith(`${BULL_BOARD_PATH}/`),
    handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
      if (!tokenMatches(req.headers.authorization, token)) {
        res.writeHead(401, { "content-type": "application/json; charset=utf-8", "www-authenticate": ['Bearer realm="operator"', 'Basic realm="operator"'] });
        res.end(JSON.stringify({ message: "operator token required", type: "UnauthorizedException", status: "error" }));
        return Promise.resolve();
      }
      // The Express app is written for being mounted at the base path: it sees the rest of the URL.
      req.url = req.url!.slice(BULL_BOARD_PATH.length) || "/";
      return new Promise((resolve, reject) => {
        res.on("close", () => resolve());
        app(req, res, (err) => {
          if (err) return reject(err as Error);
          res.writeHead(404, { "content-type": "application/json; charset=utf-8" });
          res.end(JSON.stringify({ message: "not found", type: "NotFoundException", status: "error" }));
        });
      });
    },
    close: () => Promise.all(queues.map((q) => q.close())).then(() => undefined),
  };
}
