// API key material. The public half (X-API-KEY) is looked up; the secret half (SVC-KEY) is stored only
// as a SHA-256 digest. The secrets are 256 random bits, so a fast digest is enough (nothing to brute
// force) and keeps authentication off the CPU's hot path; comparison is constant-time.
import crypto from "node:crypto";

export function newApiKey(): string {
  return `wok_${crypto.randomBytes(18).toString("base64url")}`;
}

export function newSecret(): string {
  return crypto.randomBytes(32).toString("base64url");
}

export function hashSecret(secret: string): string {
  return crypto.createHash("sha256").update(secret, "utf8").digest("hex");
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(hashSecret(secret), "hex");
  const stored = Buffer.from(storedHash, "hex");
  return given.length === stored.length && crypto.timingSafeEqual(given, stored);
}
