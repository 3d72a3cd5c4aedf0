// An in-process SMTP server for the mail tests (invites, mail metrics): collects every accepted message,
// and can be told to reject the next N messages with a temporary failure (451) to exercise the worker's
// retries.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { waitFor } from "./wait.ts";

export interface ReceivedMail {
  /** RCPT TO addresses of the SMTP envelope. */
  rcptTo: string[];
  headers: Record<string, string>;
  subject: string;
  /** The decoded text body. */
  text: string;
  raw: string;
}

export interface TestSmtp {
  url: string;
  received: ReceivedMail[];
  /** DATA commands seen, accepted or rejected. */
  attempts: number;
  /** Reject the next `n` messages with 451. */
  failNext(n: number): void;
  /** Resolves with the first mail matching, polling until `timeoutMs`. */
  waitFor(match: (m: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  let failures = 0;
  const state = { received: [] as ReceivedMail[], attempts: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        state.attempts++;
        if (failures > 0) {
          failures--;
          return callback(Object.assign(new Error("temporary failure, try again later"), { responseCode: 451 }));
        }
        state.received.push(
          parseMail(
            Buffer.concat(chunks).toString("utf8"),
            session.envelope.rcptTo.map((r) => r.address),
          ),
        );
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    get received() {
      return state.received;
    },
    get attempts() {
      return state.attempts;
    },
    failNext: (n) => void (failures = n),
    waitFor: (match, timeoutMs = 10_000) => waitFor(() => state.received.find(match), timeoutMs, "a matching mail"),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Just enough MIME for nodemailer's single-part text mails: unfolded headers, RFC 2047 words, QP/base64 bodies. */
function parseMail(raw: string, rcptTo: string[]): ReceivedMail {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  const headers: Record<string, string> = {};
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.slice(split + 4);
  const encoding = (headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
  if (encoding === "quoted-printable") body = decodeQp(body);
  else if (encoding === "base64") body = Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  const subject = (headers.subject ?? "").replace(
    /=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi,
    (_m, kind: string, text: string) =>
      kind.toLowerCase() === "b" ? Buffer.from(text, "base64").toString("utf8") : decodeQp(text.replace(/_/g, " ")),
  );
  return { rcptTo, headers, subject, text: body.replace(/\r\n/g, "\n"), raw };
}

function decodeQp(text: string): string {
  const s = text.replace(/=\r?\n/g, ""); // soft line breaks
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const hex = s.slice(i + 1, i + 3);
    if (s[i] === "=" && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(s[i], "utf8"));
  }
  return Buffer.from(bytes).toString("utf8");
}
