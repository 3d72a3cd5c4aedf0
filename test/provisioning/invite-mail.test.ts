// The invite mail end to end: API (contact + mail outbox in one transaction) → mail worker (claims due
// mail from PostgreSQL) → nodemailer → an SMTP server.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import pino from "pino";
import { startApp } from "../../src/app.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { MAIL_ATTEMPTS } from "../../src/schema/mail/rules.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";

const PATH = "/v1/buyer/user/provision";
let t: TestApp;
let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestApp({
    configure: (c) => {
      c.roles.worker = true; // this process also runs the mail worker
      c.smtpUrl = smtp.url;
      c.portalUrl = "https://portal.test/";
      c.mailRetryDelayMs = 20; // 20, 40, 80 … ms between attempts instead of seconds
    },
  });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const to = (email: string) => (m: { rcptTo: string[] }) => m.rcptTo.includes(email);
/** A mail committed to the outbox, as the API commits invites; the worker sends it. */
let marker = 0;
const commitMail = (message: { to: string; subject: string; text: string }, jobId = `test-mail-${++marker}`) =>
  t.db.mailOutbox.create({ data: { jobId, message } });

describe("invite mail", () => {
  it("without a password: invites to sign up, with the email in the signup link", async () => {
    const reply = await t.call("acme-key", "POST", PATH, {
      email: "Olga+Ops@Acme.example",
      nameGiven: "Olga",
      nameFamily: "Ops",
      roles: ["dispatcher"],
    });
    expect(reply.status).toBe(200);
    const mail = await smtp.waitFor(to("olga+ops@acme.example"));
    expect(mail.headers.to).toContain("olga+ops@acme.example");
    expect(mail.subject).toBe("You're invited to Acme Foods");
    expect(mail.text).toContain("Hello Olga,");
    expect(mail.text).toContain("Alice Admin has invited you to Acme Foods");
    expect(mail.text).toContain("https://portal.test/signup?email=olga%2Bops%40acme.example\n");
    expect(mail.text).not.toContain("/login");
  });

  it("with a password: points to the login, says a change is required, and does not contain the password", async () => {
    const password = "s3cret-Passw0rd";
    const reply = await t.call("acme-key", "POST", PATH, {
      email: "pat@acme.example",
      nameGiven: "Pat",
      nameFamily: "Login",
      roles: ["technician"],
      password,
      passwordResetRequired: true,
    });
    expect(reply.body.data.inviteStatus).toBe("login_created");
    const mail = await smtp.waitFor(to("pat@acme.example"));
    expect(mail.subject).toBe("You're invited to Acme Foods");
    expect(mail.text).toContain("https://portal.test/login\n");
    expect(mail.text).toContain("change your password when you first sign in");
    expect(mail.text).not.toContain("signup");
    expect(mail.raw).not.toContain(password);

    await t.call("acme-key", "POST", PATH, {
      email: "quinn@acme.example",
      nameGiven: "Quinn",
      nameFamily: "Q",
      roles: ["technician"],
      password,
    });
    const noReset = await smtp.waitFor(to("quinn@acme.example"));
    expect(noReset.text).toContain("https://portal.test/login\n");
    expect(noReset.text).not.toContain("change your password");
  });

  it("retries a failed delivery with backoff until the SMTP server accepts it", async () => {
    smtp.failNext(2);
    const attemptsBefore = smtp.attempts;
    const reply = await t.call("acme-key", "POST", PATH, {
      email: "retry@acme.example",
      nameGiven: "Rita",
      nameFamily: "Retry",
      roles: ["technician"],
    });
    expect(reply.status).toBe(200);
    await smtp.waitFor(to("retry@acme.example"));
    expect(smtp.attempts - attemptsBefore).toBe(3);
    expect(smtp.received.filter(to("retry@acme.example"))).toHaveLength(1);
    const retried = () =>
      t.logs.filter((l) => l.msg === "mail failed; will retry" && l.jobId === `invite-contact-${reply.body.data.id}`);
    // The worker records the attempt only after the server's 250 reply: poll for it.
    await vi.waitFor(
      async () => {
        const row = await t.db.mailOutbox.findUniqueOrThrow({
          where: { jobId: `invite-contact-${reply.body.data.id}` },
        });
        expect(row).toMatchObject({ status: "sent", attempts: 3, nextAttemptAt: null, leaseUntil: null });
        expect(row.sentAt).toBeInstanceOf(Date);
        expect(retried().map((l) => l.attempt)).toEqual([1, 2]);
      },
      { timeout: 5_000, interval: 25 },
    );
  });

  it("gives a mail up after its last attempt, logged as an error", async () => {
    smtp.failNext(MAIL_ATTEMPTS);
    const row = await commitMail({ to: "never@acme.example", subject: "doomed", text: "doomed" });
    await vi.waitFor(
      async () => {
        expect(await t.db.mailOutbox.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
          status: "failed",
          attempts: MAIL_ATTEMPTS,
          nextAttemptAt: null,
        });
      },
      { timeout: 5_000, interval: 25 },
    );
    expect(t.logs.filter((l) => l.msg === "mail given up" && l.jobId === row.jobId && l.level === 50)).toHaveLength(1);
    expect(smtp.received.filter(to("never@acme.example"))).toHaveLength(0);
  });

  it("never sends a mail twice: a sent mail is not due again", async () => {
    const reply = await t.call("acme-key", "POST", PATH, {
      email: "once@acme.example",
      nameGiven: "Owen",
      nameFamily: "Once",
      roles: ["technician"],
    });
    await smtp.waitFor(to("once@acme.example"));
    // A marker mail: once it is delivered, the worker has had every chance to send the invite again.
    const row = await t.db.mailOutbox.findUniqueOrThrow({ where: { jobId: `invite-contact-${reply.body.data.id}` } });
    await vi.waitFor(
      async () => expect((await t.db.mailOutbox.findUniqueOrThrow({ where: { id: row.id } })).status).toBe("sent"),
      { timeout: 5_000 },
    );
    await commitMail({ to: "marker@acme.example", subject: "marker", text: "marker" });
    await smtp.waitFor(to("marker@acme.example"));
    await new Promise((r) => setTimeout(r, 200));
    expect(smtp.received.filter(to("once@acme.example"))).toHaveLength(1);
  });

  it("needs no Redis in the API: an invite committed while Redis is unreachable is sent by the worker", async () => {
    // An API instance whose Redis is down (its rate limiter fails open); this file's worker relays the outbox.
    const api = await startApp(
      { ...t.config, port: 0, redisUrl: "redis://127.0.0.1:1", roles: { api: true, worker: false } },
      {
        db: t.db,
        logger: pino({ level: "silent" }),
      },
    );
    try {
      const reply = await fetch(`http://127.0.0.1:${api.port}${PATH}`, {
        method: "POST",
        headers: { ...t.headers("acme-key"), "content-type": "application/json" },
        body: JSON.stringify({
          email: "offline@acme.example",
          nameGiven: "Otto",
          nameFamily: "Offline",
          roles: ["technician"],
        }),
      });
      expect(reply.status).toBe(200);
    } finally {
      await api.close();
    }
    await smtp.waitFor(to("offline@acme.example"));
    expect(smtp.received.filter(to("offline@acme.example"))).toHaveLength(1);
  });

  it("sends nothing for a refused request", async () => {
    const reply = await t.call("acme-key", "POST", PATH, {
      email: "refused@acme.example",
      nameGiven: "R",
      nameFamily: "R",
      roles: ["admin"],
    });
    expect(reply.status).toBe(403);
    await commitMail({ to: "marker2@acme.example", subject: "marker", text: "marker" });
    await smtp.waitFor(to("marker2@acme.example"));
    expect(smtp.received.filter(to("refused@acme.example"))).toHaveLength(0);
  });
});
