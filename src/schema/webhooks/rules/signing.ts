// Webhook signatures (docs/decisions.md#webhooks): `X-Signature-256: sha256=<hex HMAC-SHA256(secret, rawBody)>`
// and the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature over
// "id.timestamp.body"), so receivers can verify with that library. During a rotation both the new and
// the previous secret sign: two space-separated v1 signatures, and two comma-separated sha256 values.
import crypto from "node:crypto";

const keys = new Map<string, Buffer>();

/** The key bytes of a secret: `whsec_<base64>` as in Standard Webhooks, otherwise the text itself (decoded once per secret). */
function keyOf(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size > 10_000) keys.clear(); // endpoints are few; a bound against unbounded growth all the same
    key = secret.startsWith("whsec_")
      ? Buffer.from(secret.slice("whsec_".length), "base64")
      : Buffer.from(secret, "utf8");
    keys.set(secret, key);
  }
  return key;
}

export function signatureHeaders(
  body: string,
  options: { webhookId: string; timestamp: number; secrets: string[] },
): Record<string, string> {
  const sha256 = options.secrets.map(
    (s) => `sha256=${crypto.createHmac("sha256", keyOf(s)).update(body).digest("hex")}`,
  );
  const signed = `${options.webhookId}.${options.timestamp}.${body}`;
  const v1 = options.secrets.map((s) => `v1,${crypto.createHmac("sha256", keyOf(s)).update(signed).digest("base64")}`);
  return {
    "X-Signature-256": sha256.join(", "),
    "webhook-id": options.webhookId,
    "webhook-timestamp": String(options.timestamp),
    "webhook-signature": v1.join(" "),
  };
}
