// `operator keys issue|revoke`: API keys are issued by the operator, never by the API.
import type { Db } from "../db.ts";
import { hashSecret, newApiKey, newSecret } from "../schema/core/keys.ts";

export async function issueKey(
  db: Db,
  options: { contactEmail: string; kind: "buyer" | "supplier" | "partner"; expiresAt?: Date; rateLimit?: { requests: number; windowSeconds: number } },
): Promise<{ id: number; apiKey: string; svcKey: string }> {
  const contact = await db.contact.findUnique({ where: { email: options.contactEmail.toLowerCase() } });
  if (!contact) throw new Error(`no contact with email ${options.contactEmail}`);
  if ((options.kind === "buyer") !== (contact.buyerFacilityId !== null)) {
    throw new Error(`a ${options.kind} key needs a contact at a ${options.kind === "buyer" ? "buyer" : "supplier"} facility`);
  }
  const svcKey = newSecret();
  const row = await db.apiKey.create({
    data: {
      apiKey: newApiKey(), secretHash: hashSecret(svcKey), kind: options.kind, contactId: contact.id,
      expiresAt: options.expiresAt ?? null,
      rateLimitRequests: options.rateLimit?.requests ?? null, rateLimitWindowSeconds: options.rateLimit?.windowSeconds ?? null,
    },
  });
  return { id: row.id, apiKey: row.apiKey, svcKey };
}

export async function revokeKey(db: Db, apiKey: string, now = new Date()): Promise<{ apiKey: string; revokedAt: string }> {
  const row = await db.apiKey.findUnique({ where: { apiKey } });
  if (!row) throw new Error(`no key ${apiKey}`);
  const revoked = row.revokedAt ?? (await db.apiKey.update({ where: { id: row.id }, data: { revokedAt: now } })).revokedAt!;
  return { apiKey, revokedAt: revoked.toISOString() };
}
