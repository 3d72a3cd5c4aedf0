// Outgoing mail: a message is written to the mail outbox in the transaction of the change that causes
// it (queueMail), handed to the BullMQ mail queue by the worker (handOverMail) under its job id, so a
// repeated hand-over is not sent twice, and sent over SMTP with retries (jobs.ts).
import { Queue, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import type { Db, Tx } from "../../db.ts";

export const MAIL_QUEUE = "mail";

export interface MailMessage {
  to: string;
  cc?: string;
  from?: string;
  subject: string;
  text: string;
  html?: string;
}

/** The address every mail is sent from; the display name may change per mail (senderNamed). */
export const SENDER_ADDRESS = "no-reply@wo-service.local";

/** `"Name" <SENDER_ADDRESS>`: a mail sent on someone's behalf shows their name (quotes and line breaks dropped). */
export const senderNamed = (name: string) => `"${name.replace(/["\\\r\n]/g, "").trim()}" <${SENDER_ADDRESS}>`;

export const MAIL_ATTEMPTS = 5;

/**
 * Retries with exponential backoff: 5 attempts from `retryDelayMs` (default 5 s: 5, 10, 20, 40 s), so a
 * short SMTP outage loses nothing. The delay is configurable (MAIL_RETRY_DELAY_MS) so tests stay fast.
 */
export const mailJobOptions = (retryDelayMs = 5_000): JobsOptions => ({
  attempts: MAIL_ATTEMPTS,
  backoff: { type: "exponential", delay: retryDelayMs },
  // Completed jobs are kept for a while so a repeated jobId is recognised as a duplicate and not re-sent.
  removeOnComplete: 1000,
  removeOnFail: 5000,
});

export function mailQueue(connection: Redis, prefix: string) {
  return new Queue<MailMessage>(MAIL_QUEUE, { connection, prefix });
}

/** Writes a message to the mail outbox in the caller's transaction; `jobId` makes it sent at most once. */
export async function queueMail(tx: Tx, jobId: string, message: MailMessage): Promise<void> {
  await tx.mailOutbox.create({ data: { jobId, message: message as object } });
}

/** Mail outbox rows → the mail queue, under their job id; the number handed over. */
export async function handOverMail(db: Db, queue: Queue<MailMessage>, jobOptions: JobsOptions, now: Date, batch = 200): Promise<number> {
  const pending = await db.mailOutbox.findMany({ where: { enqueuedAt: null }, orderBy: { id: "asc" }, take: batch });
  if (pending.length === 0) return 0;
  await queue.addBulk(pending.map((m) => ({ name: "send", data: m.message as unknown as MailMessage, opts: { ...jobOptions, jobId: m.jobId } })));
  await db.mailOutbox.updateMany({ where: { id: { in: pending.map((m) => m.id) } }, data: { enqueuedAt: now } });
  return pending.length;
}
