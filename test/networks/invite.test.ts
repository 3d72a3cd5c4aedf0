// The sub-contractor invite end to end: API (contact + mail outbox in one transaction) → the worker's
// relay → BullMQ → SMTP, received by an in-process SMTP server and checked field by field; the five
// rules of the contract, path emails decoded and validated, refused requests writing and sending nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pino from "pino";
import { startTestApp, type TestApp } from "../support/app.ts";
import { startSmtp, type ReceivedMail, type TestSmtp } from "../support/smtp.ts";
import { waitFor } from "../support/wait.ts";
import { inviteSubContractor, subContractorInviteMail } from "../../src/schema/private-network/rules.ts";
import type { Context } from "../../src/schema/core/context.ts";
import { networkFixture } from "./network-fixture.ts";

let t: TestApp;
let smtp: TestSmtp;
let refs: Record<string, number>;
const PATH = "/v1/supplier/private_network/supplier_supplier_relationships";
const SENDER = "no-reply@wo-service.local";

beforeAll(async () => {
  smtp = await startSmtp();
  const fixture = networkFixture();
  fixture.contacts.push({
    ref: "nameless",
    email: "nameless@coolco.example",
    nameGiven: "",
    nameFamily: "",
    supplierFacility: "coolco-pdx",
    roles: [],
  });
  t = await startTestApp({
    fixture,
    configure: (c) => {
      c.roles.worker = true;
      c.smtpUrl = smtp.url;
      c.portalUrl = "https://portal.test/";
      c.mailRetryDelayMs = 20;
      c.relayIntervalMs = 20;
    },
  });
  refs = t.fixture.refs;
  const relate = async (key: string, body: Record<string, unknown>) =>
    expect((await t.call(key, "POST", PATH, body)).status).toBe(200);
  await relate("coolco-key", {
    supplierFacilityId: refs["fixit-pdx"],
    workOrdersRoutedTo: ["dispatch@fixit.example", "dana@fixit.example"],
    supplierAccountEmails: ["acct@fixit.example"],
  });
  await relate("coolco-key", {
    supplierFacilityId: refs["fixit-sea"],
    supplierAccountEmails: ["acct-sea@fixit.example"],
  });
  await relate("coolco-key", { supplierFacilityId: refs["coolco-sea"] });
  await relate("inhouse-key", { supplierFacilityId: refs["coolco-sea"] });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const invite = (
  sf: string | number,
  from: string,
  to: string,
  fN = "New",
  lN = "Person",
  body?: unknown,
  key = "coolco-key",
) => t.call(key, "POST", `${PATH}/${refs[sf] ?? sf}/invite/${from}/${to}/name/${fN}/${lN}`, body);
const mailTo = (email: string) => (m: ReceivedMail) => m.headers.to === email;
const lines = (mail: ReceivedMail) => mail.text.trimEnd().split("\n");

/** A refused invite: the error body, no contact, no relationship change, no mail committed. */
async function refused(request: () => Promise<{ status: number; body: any }>, status: number, message: RegExp) {
  const before = {
    contacts: await t.db.contact.count(),
    mails: await t.db.mailOutbox.count(),
    relationships: await t.db.supplierSupplierRelationship.findMany(),
  };
  const reply = await request();
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body).toMatchObject({ status: "error", traceId: expect.any(String) });
  expect(reply.body.message).toMatch(message);
  expect(await t.db.contact.count()).toBe(before.contacts);
  expect(await t.db.mailOutbox.count()).toBe(before.mails);
  expect(await t.db.supplierSupplierRelationship.findMany()).toEqual(before.relationships);
}

describe("invite to a new contact", () => {
  it("creates a supplier contact at sfId flagged new and mails the invite with the signup link", async () => {
    const reply = await invite("fixit-pdx", "bob%40coolco.example", "New.Person%40FixIt.example", "New", "Person", {
      note: "Please take our overflow work.",
    });
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body).toEqual({ code: "subContractorInviteSent", message: "Emails sent!" });
    const contact = await t.db.contact.findUniqueOrThrow({ where: { email: "new.person@fixit.example" } });
    expect(contact).toMatchObject({
      nameGiven: "New",
      nameFamily: "Person",
      supplierFacilityId: refs["fixit-pdx"],
      buyerFacilityId: null,
      roles: [],
      isNew: true,
    });
    expect(contact.invitedAt).toBeInstanceOf(Date);

    const mail = await smtp.waitFor(mailTo("new.person@fixit.example"));
    expect(mail.subject).toBe("Bob from CoolCo Portland has added FixIt Portland as a sub-contractor");
    expect(mail.headers.from).toMatch(new RegExp(`^"?Bob Tech"? <${SENDER}>$`));
    expect(mail.headers.cc).toBe("bob@coolco.example");
    expect(mail.rcptTo.sort()).toEqual(["bob@coolco.example", "new.person@fixit.example"]);
    expect(lines(mail)).toEqual([
      "Hello New,",
      "",
      "Bob Tech from CoolCo Portland has added FixIt Portland as a sub-contractor.",
      "",
      "Please take our overflow work.",
      "",
      "Dispatched work will be notified at: dispatch@fixit.example, dana@fixit.example",
      "",
      "Sign up to receive and manage the work:",
      "https://portal.test/supplier/signup?email=new.person%40fixit.example",
    ]);
  });

  it("invites a contact that is still new again with the signup link, without a second contact", async () => {
    const reply = await invite("fixit-pdx", "bob@coolco.example", "new.person@fixit.example", "Other", "Name");
    expect(reply.status).toBe(200);
    expect(await t.db.contact.count({ where: { email: "new.person@fixit.example" } })).toBe(1);
    const mails = await waitForCount(mailTo("new.person@fixit.example"), 2);
    expect(lines(mails[1])[0]).toBe("Hello New,"); // the contact's name, not the path's
    expect(lines(mails[1]).at(-1)).toBe("https://portal.test/supplier/signup?email=new.person%40fixit.example");
    expect(mails[1].text).not.toContain("Please take"); // no note this time
  });

  it("creates one contact when two invites of the same new address race", async () => {
    const replies = await Promise.all(
      [1, 2, 3].map(() => invite("fixit-pdx", "bob@coolco.example", "racer@fixit.example", "Rae", "Cer")),
    );
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await t.db.contact.count({ where: { email: "racer@fixit.example" } })).toBe(1);
    await waitForCount(mailTo("racer@fixit.example"), 3);
  });
});

describe("invite to an existing contact", () => {
  it("creates no contact; greets by the contact's name; links to the portal", async () => {
    const contacts = await t.db.contact.count();
    const reply = await invite("fixit-pdx", "bob@coolco.example", "dana@fixit.example", "Ignored", "Name");
    expect(reply.body).toEqual({ code: "subContractorInviteSent", message: "Emails sent!" });
    expect(await t.db.contact.count()).toBe(contacts);
    expect(await t.db.contact.findUniqueOrThrow({ where: { email: "dana@fixit.example" } })).toMatchObject({
      nameGiven: "Dana",
      isNew: false,
    });
    const mail = await smtp.waitFor(mailTo("dana@fixit.example"));
    expect(lines(mail)).toEqual([
      "Hello Dana,",
      "",
      "Bob Tech from CoolCo Portland has added FixIt Portland as a sub-contractor.",
      "",
      "Dispatched work will be notified at: dispatch@fixit.example, dana@fixit.example",
      "",
      "Sign in to receive and manage the work:",
      "https://portal.test",
    ]);
  });

  it("counts a contact of another facility of the sub-contractor's company as existing", async () => {
    // inhouse-west → coolco-sea; bob is at coolco-pdx, a sibling facility of coolco-sea.
    const contacts = await t.db.contact.count();
    const reply = await invite(
      "coolco-sea",
      "ivy@acme.example",
      "bob@coolco.example",
      "X",
      "Y",
      undefined,
      "inhouse-key",
    );
    expect(reply.status, reply.body.message).toBe(200);
    expect(await t.db.contact.count()).toBe(contacts);
    const mail = await smtp.waitFor(mailTo("bob@coolco.example"));
    expect(mail.subject).toBe("Ivy from Acme Facilities West has added CoolCo Seattle as a sub-contractor");
    expect(mail.headers.cc).toBe("ivy@acme.example");
    expect(lines(mail)[0]).toBe("Hello Bob,");
    expect(lines(mail)).toContain("Dispatched work will be notified at: bob@coolco.example"); // rule 5: toEmail
  });
});

describe("rule 5: where dispatched work is notified", () => {
  it("workOrdersRoutedTo, else supplierAccountEmails, else toEmail", async () => {
    await invite("fixit-sea", "bob@coolco.example", "sea.one%40fixit.example", "Sea", "One");
    expect(lines(await smtp.waitFor(mailTo("sea.one@fixit.example")))).toContain(
      "Dispatched work will be notified at: acct-sea@fixit.example",
    );
    await invite("coolco-sea", "bob@coolco.example", "sam%40coolco.example");
    expect(lines(await smtp.waitFor(mailTo("sam@coolco.example")))).toContain(
      "Dispatched work will be notified at: sam@coolco.example",
    );
  });
});

describe("rule 4: unresolved names", () => {
  it("`Your client` for a referrer without a name, `you` for a sub-contractor facility without one", async () => {
    await t.db.supplierFacility.update({ where: { id: refs["coolco-sea"] }, data: { name: " " } });
    try {
      const reply = await invite("coolco-sea", "nameless@coolco.example", "unnamed@coolco.example", "Una", "Named");
      expect(reply.status, reply.body.message).toBe(200);
    } finally {
      await t.db.supplierFacility.update({ where: { id: refs["coolco-sea"] }, data: { name: "CoolCo Seattle" } });
    }
    const mail = await smtp.waitFor(mailTo("unnamed@coolco.example"));
    expect(mail.subject).toBe("Your client from CoolCo Portland has added you as a sub-contractor");
    expect(mail.headers.from).toMatch(new RegExp(`^"?Your client"? <${SENDER}>$`));
    expect(mail.headers.cc).toBe("nameless@coolco.example");
    expect(lines(mail).slice(0, 3)).toEqual([
      "Hello Una,",
      "",
      "Your client from CoolCo Portland has added you as a sub-contractor.",
    ]);
    expect(lines(mail).at(-1)).toBe("https://portal.test/supplier/signup?email=unnamed%40coolco.example");
  });

  it("builds the mail as a pure function (greeting without a name, no note)", () => {
    const mail = subContractorInviteMail({
      toEmail: "a+b@x.example",
      greetingName: " ",
      referrerFirstName: "Bob",
      referrerFullName: 'Bob "B" Tech',
      referrerEmail: "bob@coolco.example",
      facilityName: "CoolCo Portland",
      subContractorName: "FixIt",
      note: null,
      notifiedAt: ["a+b@x.example"],
      isNew: true,
      portalUrl: "https://p.test//",
    });
    expect(mail).toEqual({
      to: "a+b@x.example",
      cc: "bob@coolco.example",
      from: `"Bob B Tech" <${SENDER}>`,
      subject: "Bob from CoolCo Portland has added FixIt as a sub-contractor",
      text:
        'Hello,\n\nBob "B" Tech from CoolCo Portland has added FixIt as a sub-contractor.\n\nDispatched work will be notified at: a+b@x.example\n\n' +
        "Sign up to receive and manage the work:\nhttps://p.test/supplier/signup?email=a%2Bb%40x.example\n",
    });
  });
});

describe("path emails", () => {
  it("are URL-decoded (%40, %2B), trimmed and lowercased", async () => {
    const reply = await invite("fixit-pdx", "BOB%40CoolCo.example", "Plus%2BTag%40FixIt.example", "Plus", "Tag");
    expect(reply.status, reply.body.message).toBe(200);
    expect(await t.db.contact.findUnique({ where: { email: "plus+tag@fixit.example" } })).toMatchObject({
      isNew: true,
    });
    const mail = await smtp.waitFor(mailTo("plus+tag@fixit.example"));
    expect(lines(mail).at(-1)).toBe("https://portal.test/supplier/signup?email=plus%2Btag%40fixit.example");
    expect((await invite("fixit-pdx", "bob@coolco.example", "raw+plus@fixit.example", "Raw", "Plus")).status).toBe(200);
    expect(await t.db.contact.findUnique({ where: { email: "raw+plus@fixit.example" } })).not.toBeNull();
  });

  it("must be emails: a malformed fromEmail or toEmail is a 400 naming it", async () => {
    await refused(
      () => invite("fixit-pdx", "not-an-email", "x@fixit.example"),
      400,
      /^fromEmail must be an email address/,
    );
    await refused(
      () => invite("fixit-pdx", "bob@coolco.example", "x%40fixit"),
      400,
      /^toEmail must be an email address/,
    );
    await refused(() => invite("fixit-pdx", "bob@coolco.example", "a%20b@fixit.example"), 400, /^toEmail/);
  });
});

describe("refused invites write and send nothing", () => {
  it("rule 1: 404 without a relationship of the caller's facility with sfId", async () => {
    await refused(
      () => invite("fixit-tac", "bob@coolco.example", "x@fixit.example"),
      404,
      /^could not find supplier supplier relationship/,
    );
    await refused(
      () => invite(999999, "bob@coolco.example", "x@fixit.example"),
      404,
      /^could not find supplier supplier relationship/,
    );
    // inhouse-west has no relationship with fixit-pdx (coolco-pdx has).
    await refused(
      () => invite("fixit-pdx", "ivy@acme.example", "x@fixit.example", "X", "Y", undefined, "inhouse-key"),
      404,
      /^could not find supplier supplier relationship/,
    );
    await refused(() => invite("abc", "bob@coolco.example", "x@fixit.example"), 400, /./);
  });

  it("rule 2: a caller contact without a facility is a 400 (checked by the rule; such keys do not authenticate)", async () => {
    const viewer = { kind: "supplier", supplierFacilityId: null, buyerCompanyId: null, roles: ["dispatcher"] };
    const ctx = {
      db: t.db,
      logger: pino({ level: "silent" }),
      now: () => new Date(),
      portalUrl: "https://portal.test",
      viewer,
      traceId: "t",
      channel: "supplier",
    } as unknown as Context;
    const before = await t.db.mailOutbox.count();
    await expect(
      inviteSubContractor(ctx, {
        sfId: refs["fixit-pdx"],
        fromEmail: "bob@coolco.example",
        toEmail: "x@fixit.example",
        fN: "X",
        lN: "Y",
      }),
    ).rejects.toMatchObject({
      status: 400,
      type: "invalidInputDataException",
      message: "the key's contact has no supplier facility",
    });
    expect(await t.db.mailOutbox.count()).toBe(before);
  });

  it("fromEmail must be a contact of the caller's facility; toEmail must not be another company's contact", async () => {
    await refused(
      () => invite("fixit-pdx", "ivy@acme.example", "x@fixit.example"),
      400,
      /^fromEmail ivy@acme\.example is not a contact of your supplier facility/,
    );
    await refused(() => invite("fixit-pdx", "ghost@coolco.example", "x@fixit.example"), 400, /^fromEmail/);
    await refused(() => invite("fixit-pdx", "sam@coolco.example", "x@fixit.example"), 400, /^fromEmail/); // coolco-sea, not the caller's facility
    await refused(
      () => invite("fixit-pdx", "bob@coolco.example", "gina@globex.example"),
      400,
      /^toEmail gina@globex\.example is a contact of another company/,
    );
    await refused(() => invite("fixit-pdx", "bob@coolco.example", "ivy@acme.example"), 400, /^toEmail/);
  });

  it("names and note are checked", async () => {
    await refused(
      () => invite("fixit-pdx", "bob@coolco.example", "x@fixit.example", "%20", "Y"),
      400,
      /^fN must be 1 to 100 characters/,
    );
    await refused(() => invite("fixit-pdx", "bob@coolco.example", "x@fixit.example", "X", "y".repeat(101)), 400, /^lN/);
    await refused(
      () => invite("fixit-pdx", "bob@coolco.example", "x@fixit.example", "X", "Y", { note: "n".repeat(2001) }),
      400,
      /^note must be at most 2000/,
    );
    await refused(() => invite("fixit-pdx", "bob@coolco.example", "x@fixit.example", "X", "Y", { note: 42 }), 400, /./);
  });

  it("no mail reached the SMTP server for any refused invite", async () => {
    // A marker invite sent last: once it arrives, the worker has had every chance to send anything earlier.
    await invite("fixit-pdx", "bob@coolco.example", "marker@fixit.example", "Mark", "Er");
    await smtp.waitFor(mailTo("marker@fixit.example"));
    expect(
      smtp.received.filter((m) =>
        ["x@fixit.example", "gina@globex.example", "ivy@acme.example"].includes(m.headers.to),
      ),
    ).toEqual([]);
  });
});

describe("GraphQL", () => {
  it("serves the invite as a mutation with the same rules", async () => {
    const mutation = `mutation($sf: Int!) { inviteSubContractor(sfId: $sf, fromEmail: "bob@coolco.example", toEmail: "gql@fixit.example", fN: "G", lN: "Q", input: {note: "hi"}) { code message } }`;
    const reply = await t.graphql("coolco-key", mutation, { sf: refs["fixit-pdx"] });
    expect(reply.body.data.inviteSubContractor).toEqual({ code: "subContractorInviteSent", message: "Emails sent!" });
    expect(lines(await smtp.waitFor(mailTo("gql@fixit.example")))).toContain("hi");
    const missing = await t.graphql("coolco-key", mutation, { sf: refs["fixit-tac"] });
    expect(missing.body.errors[0].extensions.code).toBe("NotFoundException");
  });
});

function waitForCount(match: (m: ReceivedMail) => boolean, count: number, timeoutMs = 10_000) {
  return waitFor(
    () => {
      const hits = smtp.received.filter(match);
      return hits.length >= count && hits;
    },
    timeoutMs,
    `${count} mails`,
  );
}
