// Webhook endpoint rules (decisions.md §3).
import net from "node:net";

export const WEBHOOK_EVENTS = ["workorder.create", "workorder.status_update", "workorder.new_note"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Rotated-out secrets keep signing (next to the new one) this long. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export function isPrivateAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost") || h.endsWith(".local") || h.endsWith(".internal")) return true;
  if (net.isIPv4(h)) {
    const [a, b] = h.split(".").map(Number);
    return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  if (net.isIPv6(h)) return h === "::1" || h === "::" || h.startsWith("fc") || h.startsWith("fd") || h.startsWith("fe80") || h.startsWith("::ffff:");
  return false;
}

/** Why a URL may not be a webhook endpoint, or null when it may. */
export function endpointUrlProblem(url: string, allowInsecure: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a valid URL";
  }
  if (parsed.protocol !== "https:" && !(allowInsecure && parsed.protocol === "http:")) {
    return allowInsecure ? "must be http or https" : "must be https (set WEBHOOK_ALLOW_INSECURE_URLS=true for development)";
  }
  if (!allowInsecure && isPrivateAddress(parsed.hostname)) return "must not point at a private or local address";
  return null;
}

/** Signing secrets in the Standard Webhooks form. */
export function newSigningSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;
}

/** Retry delays after the 1st, 2nd, … failed attempt; then hourly (decisions.md §3). */
const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];
const HOUR = 3_600_000;

export function retryDelayMs(failedAttempts: number): number {
  return RETRY_DELAYS_MS[failedAttempts - 1] ?? HOUR;
}

/** An event not handed over within three hours of the change is expired and never sent. */
export const DELIVERY_WINDOW_MS = 3 * HOUR;

/** A delivery attempt times out after 10 s. */
export const DELIVERY_TIMEOUT_MS = 10_000;
