// The mail job of the worker role: claim due mail from the outbox and send it over SMTP (nodemailer),
// recording each attempt and the next one's time in the row (rules.ts).
import nodemailer from "nodemailer";
import type { Db } from "../../db.ts";
import type { Logger } from "../../logger.ts";
import { startDueWork } from "../core/due-work.ts";
import {
  claimMail,
  DEFAULT_MAIL_LEASE_MS,
  recordMailAttempt,
  senderNamed,
  type ClaimedMail,
  type MailOutcome,
} from "./rules.ts";

/** What the mail worker reports to the metrics (the transports implement it). */
export interface MailMetrics {
  /** One send attempt was recorded: sent, retry (failed, due again later) or failed (given up). */
  mailAttempt(outcome: MailOutcome): void;
}

const DEFAULT_SENDER = senderNamed("Work Order Service");

export interface MailJobOptions {
  db: Db;
  smtpUrl: string;
  logger: Logger;
  now: () => Date;
  retryDelayMs: number;
  intervalMs: number;
  leaseMs?: number;
  metrics?: MailMetrics;
}

export function startMailJobs(o: MailJobOptions) {
  const transport = nodemailer.createTransport(o.smtpUrl);
  const leaseMs = o.leaseMs ?? DEFAULT_MAIL_LEASE_MS;

  async function send(mail: ClaimedMail) {
    const m = mail.message;
    const at = o.now();
    let error: string | null = null;
    try {
      const info = await transport.sendMail({
        from: m.from ?? DEFAULT_SENDER,
        to: m.to,
        cc: m.cc,
        subject: m.subject,
        text: m.text,
        html: m.html,
      });
      o.logger.info({ jobId: mail.jobId, to: m.to, messageId: info.messageId }, "mail sent");
    } catch (err) {
      error = (err as Error).message;
    }
    const outcome = await recordMailAttempt(o.db, mail, at, error, o.retryDelayMs);
    o.metrics?.mailAttempt(outcome);
    const attempt = mail.attempts + 1;
    // A given-up mail is logged as an error so a lost mail is never silent.
    if (outcome === "retry") o.logger.warn({ jobId: mail.jobId, attempt, err: error }, "mail failed; will retry");
    if (outcome === "failed") o.logger.error({ jobId: mail.jobId, attempt, err: error }, "mail given up");
  }

  const mail = startDueWork({
    name: "mail",
    logger: o.logger,
    concurrency: 4,
    intervalMs: o.intervalMs,
    claim: (limit) => {
      const now = o.now();
      return claimMail(o.db, now, limit, new Date(now.getTime() + leaseMs));
    },
    run: send,
  });
  return {
    async close() {
      await mail.close();
      transport.close();
    },
  };
}
