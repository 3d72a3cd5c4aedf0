// The mail jobs of the worker role: hand committed mail to the queue, and send it over SMTP
// (nodemailer). A failed send throws, so BullMQ retries it.
import { Worker } from "bullmq";
import nodemailer from "nodemailer";
import type { Redis } from "ioredis";
import type { Db } from "../../db.ts";
import type { Logger } from "../../logger.ts";
import { startPollLoop } from "../core/poll-loop.ts";
import { handOverMail, MAIL_QUEUE, mailJobOptions, mailQueue, senderNamed, type MailMessage } from "./rules.ts";

export const DEFAULT_SENDER = senderNamed("Work Order Service");

export interface MailJobOptions {
  db: Db;
  /** A connection for BullMQ's blocking worker commands. */
  connection: Redis;
  prefix: string;
  smtpUrl: string;
  logger: Logger;
  now: () => Date;
  retryDelayMs: number;
  intervalMs: number;
}

export function startMailJobs(o: MailJobOptions) {
  const transport = nodemailer.createTransport(o.smtpUrl);
  const queue = mailQueue(o.connection, o.prefix);
  const jobOptions = mailJobOptions(o.retryDelayMs);
  const handOver = startPollLoop("mail hand-over", async () => (await handOverMail(o.db, queue, jobOptions, o.now())) > 0, o.intervalMs, o.logger);
  const worker = new Worker<MailMessage>(
    MAIL_QUEUE,
    async (job) => {
      const m = job.data;
      const info = await transport.sendMail({ from: m.from ?? DEFAULT_SENDER, to: m.to, cc: m.cc, subject: m.subject, text: m.text, html: m.html });
      o.logger.info({ jobId: job.id, to: m.to, messageId: info.messageId }, "mail sent");
    },
    { connection: o.connection, prefix: o.prefix, concurrency: 4 },
  );
  worker.on("failed", (job, err) => {
    // After the last attempt the mail is given up: log it as an error so a lost mail is never silent.
    const final = !job || job.attemptsMade >= (job.opts.attempts ?? 1);
    o.logger[final ? "error" : "warn"]({ jobId: job?.id, attempt: job?.attemptsMade, final, err: err.message }, final ? "mail given up" : "mail failed; will retry");
  });
  return {
    async close() {
      await handOver.close();
      await worker.close();
      await queue.close();
      transport.close();
    },
  };
}
