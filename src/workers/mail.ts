// Sends queued mail over SMTP (SMTP_URL) with nodemailer. A failed send throws, so BullMQ retries it.
import { Worker } from "bullmq";
import nodemailer from "nodemailer";
import type { Redis } from "ioredis";
import type { Logger } from "../logger.ts";
import { MAIL_QUEUE, type MailMessage } from "./queues.ts";

export const DEFAULT_SENDER = "Work Order Service <no-reply@wo-service.local>";

export function mailWorker(connection: Redis, prefix: string, smtpUrl: string, logger: Logger) {
  const transport = nodemailer.createTransport(smtpUrl);
  const worker = new Worker<MailMessage>(
    MAIL_QUEUE,
    async (job) => {
      const m = job.data;
      const info = await transport.sendMail({ from: m.from ?? DEFAULT_SENDER, to: m.to, cc: m.cc, subject: m.subject, text: m.text, html: m.html });
      logger.info({ jobId: job.id, to: m.to, messageId: info.messageId }, "mail sent");
    },
    { connection, prefix, concurrency: 4 },
  );
  worker.on("failed", (job, err) => {
    // After the last attempt the mail is given up: log it as an error so a lost mail is never silent.
    const final = !job || job.attemptsMade >= (job.opts.attempts ?? 1);
    logger[final ? "error" : "warn"]({ jobId: job?.id, attempt: job?.attemptsMade, final, err: err.message }, final ? "mail given up" : "mail failed; will retry");
  });
  return { close: async () => { await worker.close(); transport.close(); } };
}
