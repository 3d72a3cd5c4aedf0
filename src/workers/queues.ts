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

/** Retries with exponential backoff: 5 attempts from 5 s, so a short SMTP outage loses nothing. */
export const MAIL_JOB_OPTIONS = { attempts: 5, backoff: { type: "exponential", delay: 5_000 }, removeOnComplete: 1000, removeOnFail: 5000 };

export function mailQueue(connection: Redis, prefix: string) {
  return new Queue<MailMessage>(MAIL_QUEUE, { connection, prefix });
}
