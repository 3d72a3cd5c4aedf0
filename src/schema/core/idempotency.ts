// Idempotency-Key on REST writes (docs/api.md, "Idempotent writes"): the first answer to a key is
// stored in the same transaction as the work it answers, so a crash leaves either both or neither.
// The key's row is taken first: a concurrent duplicate waits on it (PostgreSQL's unique index) until
// the first commits (and then gets its answer) or rolls back (and then does the work itself).
import crypto from "node:crypto";
import type { Db } from "../../db.ts";
import type { Logger } from "../../logger.ts";
import { badInput, unprocessable } from "./errors.ts";
import { startPollLoop } from "./poll-loop.ts";
import { inTransaction, joinable } from "./transaction.ts";

/** How long an answer is kept and replayed. */
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Keys are 1 to 255 visible ASCII characters (a UUID is the usual choice). */
export function parseIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const key = Array.isArray(value) ? value[0] : value;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw badInput("Idempotency-Key must be 1 to 255 visible ASCII characters");
  return key;
}

/** JSON with object keys sorted, so the same body written differently is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "";
}

/** What makes two requests "the same": method, path with query string, and body. */
export function requestFingerprint(method: string, pathAndQuery: string, body: unknown): string {
  return crypto
    .createHash("sha256")
    .update(`${method} ${pathAndQuery}\n${canonical(body)}`)
    .digest("hex");
}

export interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** An answer that is not stored: what the request did is rolled back with it. */
class NotKept extends Error {
  constructor(readonly answer: Answer) {
    super("not kept");
  }
}

/** How long an idempotent request's transaction may take (a duplicate waits as long for the first). */
const IDEMPOTENT_TRANSACTION_LIMITS = { maxWait: 10_000, timeout: 60_000 };

/**
 * Runs `work` once per (API key, key): in one transaction with the key's row, `work` receiving that
 * transaction as its db (every inTransaction inside joins it). A 2xx answer is stored and committed with
 * the work; any other answer rolls everything back and is not stored (nothing was done, so a retry runs
 * again). The same key again within 24 hours: the stored answer, `replayed`; with another request: 422.
 */
export async function once(
  db: Db,
  request: { apiKeyId: number; key: string; fingerprint: string; now: Date },
  work: (db: Db) => Promise<Answer>,
): Promise<Answer & { replayed: boolean }> {
  const { apiKeyId, key, fingerprint, now } = request;
  try {
    return await inTransaction(
      db,
      async (tx) => {
        // An answer older than the window is forgotten: the key is new again.
        await tx.$executeRaw`DELETE FROM "IdempotencyKey" WHERE "apiKeyId" = ${apiKeyId} AND key = ${key} AND "createdAt" <= ${new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS)}`;
        const taken = await tx.$queryRaw<{ id: bigint }[]>`
        INSERT INTO "IdempotencyKey" ("apiKeyId", key, fingerprint, status, body, "createdAt")
        VALUES (${apiKeyId}, ${key}, ${fingerprint}, 0, '', ${now})
        ON CONFLICT ("apiKeyId", key) DO NOTHING RETURNING id`;
        if (taken.length === 0) {
          const [stored] = await tx.$queryRaw<{ fingerprint: string; status: number; body: string }[]>`
          SELECT fingerprint, status, body FROM "IdempotencyKey" WHERE "apiKeyId" = ${apiKeyId} AND key = ${key}`;
          if (stored.fingerprint !== fingerprint) {
            throw unprocessable(
              "this Idempotency-Key was already used for another request (method, path or body); use a new key",
            );
          }
          return { status: stored.status, body: stored.body, replayed: true };
        }
        const answer = await work(joinable(tx));
        if (answer.status < 200 || answer.status >= 300) throw new NotKept(answer);
        await tx.$executeRaw`UPDATE "IdempotencyKey" SET status = ${answer.status}, body = ${answer.body} WHERE id = ${taken[0].id}`;
        return { ...answer, replayed: false };
      },
      IDEMPOTENT_TRANSACTION_LIMITS,
    );
  } catch (error) {
    if (error instanceof NotKept) return { ...error.answer, replayed: false };
    throw error;
  }
}

/** Deletes answers past the window, hourly (the worker role). */
export function startIdempotencyCleanup(o: { db: Db; logger: Logger; now: () => Date; intervalMs?: number }) {
  return startPollLoop(
    "idempotency keys cleanup",
    async () => {
      const removed = await o.db.idempotencyKey.deleteMany({
        where: { createdAt: { lte: new Date(o.now().getTime() - IDEMPOTENCY_WINDOW_MS) } },
      });
      if (removed.count > 0) o.logger.info({ removed: removed.count }, "expired idempotency keys removed");
      return false;
    },
    o.intervalMs ?? 3_600_000,
    o.logger,
  );
}
