// BullMQ queue names and the producers the API uses. Connections are created by the caller so the
// API and the workers share one Redis connection policy.
import { once } from "node:events";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "../logger.ts";

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
export const MAIL_JOB_OPTIONS = mailJobOptions();

export function mailQueue(connection: Redis, prefix: string) {
  return new Queue<MailMessage>(MAIL_QUEUE, { connection, prefix });
}

/** What resolvers use to send mail: a job on the mail queue, delivered by the worker role. */
export interface MailSender {
  /**
   * Resolves once the job is in Redis (not when the mail is delivered). With `jobId`, adding the same id
   * again is a no-op in BullMQ, so a retried request cannot send the same mail twice.
   */
  send(message: MailMessage, options?: { jobId?: string }): Promise<void>;
}

/**
 * The API's producer. It shares the API's fail-fast Redis connection: a command on a connection that is
 * not ready fails at once (no offline queue), but BullMQ itself would wait forever for a connection that
 * has not been ready yet, so that case is bounded here; a request must not hang on Redis.
 */
export function mailSender(connection: Redis, prefix: string, retryDelayMs: number | undefined, logger: Logger) {
  const queue = mailQueue(connection, prefix);
  queue.on("error", (err) => logger.warn({ err: err.message }, "mail queue error"));
  const options = mailJobOptions(retryDelayMs);
  return {
    async send(message: MailMessage, { jobId }: { jobId?: string } = {}) {
      // Waits briefly (process start-up), then gives up before BullMQ is asked, so no job turns up late.
      if (connection.status !== "ready") {
        await once(connection, "ready", { signal: AbortSignal.timeout(2_000) }).catch(() => {
          throw new Error(`redis is ${connection.status}`);
        });
      }
      await queue.add("send", message, { ...options, ...(jobId ? { jobId } : {}) });
    },
    close: () => queue.close(),
  };
}
