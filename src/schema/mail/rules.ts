// Outgoing mail: a message is written to the mail outbox in the transaction of the change that causes
// it (queueMail); the worker claims due rows and sends them over SMTP (jobs.ts), retrying on the
// schedule kept in the row (core/due-work.ts), so no mail waits in Redis.
import type { Db, Tx } from "../../db.ts";
import { sqlPool } from "../../db.ts";
import { claimDueSql, pendingWork } from "../core/due-work.ts";

export interface MailMessage {
  to: string;
  cc?: string;
  from?: string;
  subject: string;
  text: string;
  html?: string;
}

/** The address every mail is sent from; the display name may change per mail (senderNamed). */
const SENDER_ADDRESS = "no-reply@wo-service.local";

/** `"Name" <SENDER_ADDRESS>`: a mail sent on someone's behalf shows their name (quotes and line breaks dropped). */
export const senderNamed = (name: string) => `"${name.replace(/["\\\r\n]/g, "").trim()}" <${SENDER_ADDRESS}>`;

export const MAIL_ATTEMPTS = 5;

/**
 * Retries with exponential backoff: 5 attempts, waiting `retryDelayMs` (default 5 s: 5, 10, 20, 40 s)
 * and doubling, so a short SMTP outage loses nothing. Configurable (MAIL_RETRY_DELAY_MS) so tests stay fast.
 */
const mailRetryDelay = (failedAttempts: number, retryDelayMs = 5_000) => retryDelayMs * 2 ** (failedAttempts - 1);

/** How long a send holds its mail before it is due again (a worker that died mid-send). */
export const DEFAULT_MAIL_LEASE_MS = 60_000;

/** Writes a message to the mail outbox in the caller's transaction; `jobId` makes it one mail, whoever writes it twice. */
export async function queueMail(tx: Tx, jobId: string, message: MailMessage): Promise<void> {
  await tx.mailOutbox.create({ data: { jobId, message: message as object } });
}

export interface ClaimedMail {
  id: number;
  jobId: string;
  message: MailMessage;
  attempts: number;
  leaseUntil: Date;
}

const CLAIM = claimDueSql("MailOutbox", `t.id, t."jobId", t.message, t.attempts, t."leaseUntil"`);

/** Up to `limit` mails due at `now` that nobody holds, held until `leaseUntil`. */
export async function claimMail(db: Db, now: Date, limit: number, leaseUntil: Date): Promise<ClaimedMail[]> {
  return (await sqlPool(db).query<ClaimedMail>(CLAIM, [now, limit, leaseUntil])).rows;
}

/** The mail not done yet at `now`: due, held by a worker, or waiting for a retry (the metrics read them). */
export const pendingMail = (db: Db, now: Date) => pendingWork(db, "MailOutbox", now);

export type MailOutcome = "sent" | "retry" | "failed";

/**
 * Records one attempt (while the claim's lease holds): sent, due again after the backoff, or given up
 * after MAIL_ATTEMPTS.
 */
export async function recordMailAttempt(
  db: Db,
  mail: ClaimedMail,
  at: Date,
  error: string | null,
  retryDelayMs: number,
): Promise<MailOutcome> {
  const attempts = mail.attempts + 1;
  const outcome: MailOutcome = error === null ? "sent" : attempts >= MAIL_ATTEMPTS ? "failed" : "retry";
  const next = outcome === "retry" ? new Date(at.getTime() + mailRetryDelay(attempts, retryDelayMs)) : null;
  await sqlPool(db).query(
    `UPDATE "MailOutbox" SET attempts = $3, status = $4::"MailStatus", "nextAttemptAt" = $5, "leaseUntil" = NULL, "lastError" = $6, "sentAt" = $7
      WHERE id = $1 AND "leaseUntil" = $2`,
    [
      mail.id,
      mail.leaseUntil,
      attempts,
      outcome === "retry" ? "pending" : outcome,
      next,
      error,
      outcome === "sent" ? at : null,
    ],
  );
  return outcome;
}
