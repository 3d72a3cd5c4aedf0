// BullMQ queue names and the producers the API uses. Connections are created by the caller so the
// API and the workers share one Redis connection policy.
import { Queue } from "bullmq";
import type { Redis } from "ioredis";

export const MAIL_QUEUE = "mail";

export interface MailMessage {
  to: string;
  cc?: string;
  from?: string;
  subject: string;
  text: string;
  html?: string;
}

export const MAIL_ATTEMPTS = 5;

/**
 * Retries with exponential backoff: 5 attempts from `retryDelayMs` (default 5 s: 5, 10, 20, 40 s), so a
 * short SMTP outage loses nothing. The delay is configurable (MAIL_RETRY_DELAY_MS) so tests stay fast.
 */
export const mailJobOptions = (retryDelayMs = 5_000) => ({
  attempts: MAIL_ATTEMPTS,
  backoff: { type: "exponential", delay: retryDelayMs },
  // Completed jobs are kept for a while so a repeated jobId is recognised as a duplicate and not re-sent.
  removeOnComplete: 1000,
  removeOnFail: 5000,
});

export function mailQueue(connection: Redis, prefix: string) {
  return new Queue<MailMessage>(MAIL_QUEUE, { connection, prefix });
}
