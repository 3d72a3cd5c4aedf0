// The invoices' background work in the worker role: publishing drafts flagged autoPublishOnApproval
// once their work order reaches display status Completed (a DB-driven loop; a save on a work order that
// is already Completed publishes at once).
import type { Db } from "../../db.ts";
import type { Logger } from "../../logger.ts";
import { startPollLoop } from "../core/poll-loop.ts";
import { autoPublishRound } from "./rules/status.ts";

export function startInvoiceJobs(o: { db: Db; logger: Logger; now: () => Date; intervalMs: number }) {
  return startPollLoop(
    "invoice auto-publish",
    async () => {
      const published = await autoPublishRound(o.db, o.now());
      if (published) o.logger.info({ published }, "invoices auto-published");
      return published > 0;
    },
    o.intervalMs,
    o.logger,
  );
}
