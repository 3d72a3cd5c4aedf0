// Signing and POSTing one webhook message to an endpoint: the delivery worker's attempts (delivery.ts)
// and the operator's test events (rules/test-event.ts) go through this one path, so a test event
// carries exactly the headers, signatures and network rules of a real delivery.
import dns from "node:dns";
import { EventEmitter } from "node:events";
import type { LookupFunction } from "node:net";
import { Agent, request } from "undici";
import { signatureHeaders } from "../rules/signing.ts";
import { DELIVERY_TIMEOUT_MS, endpointUrlProblem, isPrivateAddress } from "../rules/endpoints.ts";

export interface SenderOptions {
  /** WEBHOOK_ALLOW_INSECURE_URLS: http and private addresses allowed (development, tests). */
  allowInsecureUrls: boolean;
  /** How long an attempt may take (docs/decisions.md#webhooks: 10 s); tests shorten it. */
  timeoutMs?: number;
  /** Host name resolution (dns.lookup); tests inject names that resolve to private addresses. */
  lookup?: typeof dns.lookup;
}

/** Where a message goes and what signs it (a WebhookEndpoint row, or a delivery joined with one). */
export interface SendTarget {
  url: string;
  mode: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

export interface SendResult {
  /** The receiver's status code; null when there was no answer. */
  statusCode: number | null;
  /** Why the message does not count as received (null: a 2xx answer). */
  error: string | null;
}

/**
 * Resolves like dns.lookup but refuses names that resolve to a private address. It runs when a
 * connection is opened, so the address checked is the address connected to (no second resolution an
 * attacker's DNS could answer differently).
 */
function publicOnly(lookup: typeof dns.lookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses as dns.LookupAddress[];
      if (list.length === 0)
        return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: "ENOTFOUND" }), "", 0);
      if (list.some((a) => isPrivateAddress(a.address))) {
        return callback(
          Object.assign(new Error(`endpoint URL resolves to a private address (${hostname})`), {
            code: "EPRIVATEADDRESS",
          }),
          "",
          0,
        );
      }
      // net asks for every address when it tries several families (autoSelectFamily), else for one.
      if (options.all) (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      else callback(null, list[0].address, list[0].family);
    });
  };
}

/** What the attempt log says about a failed POST. */
function describeFailure(error: unknown): string {
  const e = error as Error & { cause?: Error };
  return e.cause?.message ?? e.message;
}

/**
 * An attempt's deadline, as undici's abort signal. An EventEmitter, which undici accepts as one: an
 * `AbortSignal.timeout` per request (an EventTarget, its timer and a DOMException) was about 5% of the
 * worker's CPU at thousands of deliveries a second.
 */
function deadline(ms: number) {
  const signal = new EventEmitter();
  let passed = false;
  const timer = setTimeout(() => {
    passed = true;
    signal.emit("abort");
  }, ms);
  return { signal, passed: () => passed, clear: () => clearTimeout(timer) };
}

export function createSender(options: SenderOptions) {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  // Keep-alive connections per endpoint origin, reused across deliveries.
  const agent = new Agent({
    connect: {
      timeout: timeoutMs,
      ...(options.allowInsecureUrls ? {} : { lookup: publicOnly(options.lookup ?? dns.lookup) }),
    },
  });

  return {
    /** Signs `body` (current secret, and the previous one while a rotation overlaps `at`) and POSTs it. */
    async post(target: SendTarget, body: string, webhookId: string, at: Date): Promise<SendResult> {
      const refused = endpointUrlProblem(target.url, options.allowInsecureUrls);
      if (refused) return { statusCode: null, error: `endpoint URL ${refused}` };
      const secrets = [target.secret];
      if (target.previousSecret && target.previousSecretExpiresAt && target.previousSecretExpiresAt > at)
        secrets.push(target.previousSecret);
      const timeout = deadline(timeoutMs);
      try {
        const response = await request(target.url, {
          method: "POST",
          dispatcher: agent,
          body,
          signal: timeout.signal,
          headers: {
            "content-type": "application/json",
            "user-agent": "wo-service-webhooks/1",
            "x-webhook-mode": target.mode,
            ...signatureHeaders(body, { webhookId, timestamp: Math.floor(at.getTime() / 1000), secrets }),
          },
        });
        await response.body.dump(); // the answer's body is not read; this frees the connection
        const ok = response.statusCode >= 200 && response.statusCode < 300;
        return { statusCode: response.statusCode, error: ok ? null : `HTTP ${response.statusCode}` };
      } catch (error) {
        return {
          statusCode: null,
          error: timeout.passed() ? `timed out after ${timeoutMs / 1000} s` : describeFailure(error),
        };
      } finally {
        timeout.clear();
      }
    },
    close: () => agent.close(),
  };
}
