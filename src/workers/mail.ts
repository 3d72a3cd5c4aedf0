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
  worker.on("failed", (job, err) => logger.warn({ jobId: job?.id, attempt: job?.attemptsMade, err: err.message }, "mail failed"));
  return { close: async () => { await worker.close(); transport.close(); } };
}
