// POST /v1/buyer/user/provision (and GraphQL provisionUser): the body, the six rules and the response.
// Mail delivery itself is in invite-mail.test.ts; here the worker role is off, so invites wait in the
// mail outbox.
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE_FIXTURE, startTestApp, type TestApp } from "../support/app.ts";

const PATH = "/v1/buyer/user/provision";
let t: TestApp;
let refs: Record<string, number>;
let n = 0;
/** A fresh, valid body. */
const body = (extra: Record<string, unknown> = {}) => ({
  email: `user${++n}@acme.example`,
  nameGiven: "Nina",
  nameFamily: "New",
  roles: ["technician"],
  ...extra,
});
const queued = () => t.db.mailOutbox.count();
const invite = (contactId: number) => t.db.mailOutbox.findUnique({ where: { jobId: `invite-contact-${contactId}` } });

beforeAll(async () => {
  // Plus a contact whose roles only read, with a key of its own.
  const fixture = structuredClone(BASE_FIXTURE);
  fixture.contacts.push({
    ref: "vera",
    email: "vera@acme.example",
    nameGiven: "Vera",
    nameFamily: "Viewer",
    buyerFacility: "acme-hq",
    roles: ["viewer"],
  });
  fixture.apiKeys.push({
    ref: "viewer-key",
    kind: "buyer",
    contact: "vera",
    rateLimit: { requests: 1000, windowSeconds: 20 },
  });
  t = await startTestApp({ fixture, configure: (c) => (c.portalUrl = "https://portal.test") });
  refs = t.fixture.refs;
});
afterAll(async () => {
  await t?.close();
});

describe("provisioning a buyer contact", () => {
  it("creates the contact at the key's facility and returns it in the Contact envelope, without password data", async () => {
    const reply = await t.call("acme-key", "POST", PATH, {
      email: "  Nina.New@ACME.example ",
      nameGiven: "Nina",
      nameFamily: "New",
      roles: ["Technician", "technician"],
      brandIds: [7, 7, 8],
      epaCertificationType: "Universal",
      epaCertificationNumber: "EPA-608-123",
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      type: "Contact",
      status: "ok",
      data: {
        id: expect.any(Number),
        email: "nina.new@acme.example",
        nameGiven: "Nina",
        nameFamily: "New",
        roles: ["technician"],
        buyerFacilityId: refs["acme-hq"],
        hasAccessToAllLocations: true,
        locationIds: [],
        brandIds: [7, 8],
        epaCertificationType: "universal",
        epaCertificationNumber: "EPA-608-123",
        passwordResetRequired: false,
        inviteStatus: "invited",
      },
    });
    const stored = await t.db.contact.findUniqueOrThrow({ where: { id: reply.body.data.id } });
    expect(stored).toMatchObject({
      email: "nina.new@acme.example",
      passwordHash: null,
      buyerFacilityId: refs["acme-hq"],
    });
    expect(stored.invitedAt).toBeInstanceOf(Date);
    // The invite is committed with the contact, under a job id derived from the contact id.
    const job = await invite(stored.id);
    expect(job?.message).toMatchObject({ to: "nina.new@acme.example", subject: "You're invited to Acme Foods" });
    expect(job).toMatchObject({ status: "pending", attempts: 0, sentAt: null });
  });

  it("accepts an own facility and own locations; listed locations default to no access to all", async () => {
    const reply = await t.call(
      "acme-key",
      "POST",
      PATH,
      body({ facilityId: refs["acme-hq"], locationIds: [refs["store-1"], refs["store-2"]] }),
    );
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({
      buyerFacilityId: refs["acme-hq"],
      locationIds: [refs["store-1"], refs["store-2"]],
      hasAccessToAllLocations: false,
    });
    const explicit = await t.call(
      "acme-key",
      "POST",
      PATH,
      body({ locationIds: [refs["store-1"]], hasAccessToAllLocations: true }),
    );
    expect(explicit.body.data).toMatchObject({ hasAccessToAllLocations: true, locationIds: [refs["store-1"]] });
  });

  it("with a password creates the login now: a salted scrypt hash is stored, never the password", async () => {
    const password = "correct horse battery";
    const reply = await t.call("acme-key", "POST", PATH, body({ password, passwordResetRequired: true }));
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ inviteStatus: "login_created", passwordResetRequired: true });
    expect(JSON.stringify(reply.body)).not.toContain(password);
    expect(reply.body.data).not.toHaveProperty("passwordHash");
    expect(reply.body.data).not.toHaveProperty("password");
    const stored = await t.db.contact.findUniqueOrThrow({ where: { id: reply.body.data.id } });
    expect(stored.passwordResetRequired).toBe(true);
    const [scheme, N, r, p, salt, hash] = stored.passwordHash!.split("$");
    expect(scheme).toBe("scrypt");
    const expected = crypto.scryptSync(
      password,
      Buffer.from(salt, "base64url"),
      Buffer.from(hash, "base64url").length,
      { N: +N, r: +r, p: +p },
    );
    expect(expected.toString("base64url")).toBe(hash);
    expect(
      crypto
        .scryptSync("wrong password", Buffer.from(salt, "base64url"), expected.length, { N: +N, r: +r, p: +p })
        .toString("base64url"),
    ).not.toBe(hash);
    // Same password, other contact: another salt, so another hash.
    const other = await t.call("acme-key", "POST", PATH, body({ password }));
    const otherHash = (await t.db.contact.findUniqueOrThrow({ where: { id: other.body.data.id } })).passwordHash!;
    expect(otherHash.split("$")[4]).not.toBe(salt);
    expect(JSON.stringify(t.logs)).not.toContain(password);
    const job = await invite(stored.id);
    expect(JSON.stringify(job?.message)).not.toContain(password);
  });

  it("is the same root mutation over GraphQL", async () => {
    const reply = await t.graphql(
      "acme-key",
      `mutation($i: ProvisionUserInput!) { provisionUser(input: $i) { id email roles buyerFacilityId inviteStatus } }`,
      { i: body({ email: "GQL@acme.example" }) },
    );
    expect(reply.body.data.provisionUser).toMatchObject({
      email: "gql@acme.example",
      roles: ["technician"],
      buyerFacilityId: refs["acme-hq"],
      inviteStatus: "invited",
    });
    const admin = await t.graphql("acme-key", `mutation($i: ProvisionUserInput!) { provisionUser(input: $i) { id } }`, {
      i: body({ roles: ["admin"] }),
    });
    expect(admin.body.errors[0].extensions.code).toBe("ForbiddenException");
    const supplier = await t.graphql(
      "coolco-key",
      `mutation($i: ProvisionUserInput!) { provisionUser(input: $i) { id } }`,
      { i: body() },
    );
    expect(supplier.body.errors[0].extensions.code).toBe("ForbiddenException");
  });

  it("maps concurrent requests for one email to a single contact; the others get the conflict 400", async () => {
    // With a password the scrypt hash widens the gap between the check and the insert, so the unique
    // index decides most of these races (Prisma P2002), which must answer like the check does.
    const email = "race@acme.example";
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => t.call("acme-key", "POST", PATH, body({ email, password: "password123" }))),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    for (const r of replies.filter((x) => x.status === 400))
      expect(r.body).toMatchObject({
        type: "invalidInputDataException",
        message: expect.stringContaining("already exists"),
      });
    expect(await t.db.contact.count({ where: { email } })).toBe(1);
  });
});

describe("refusals: nothing is stored and no invite is queued", () => {
  let contactsBefore: number;
  let jobsBefore: number;
  beforeAll(async () => {
    contactsBefore = await t.db.contact.count();
    jobsBefore = await queued();
  });

  const expectRefused = async (keyRef: string | null, b: unknown, status: number, type: string, message?: string) => {
    const before = await t.db.contact.count();
    const reply = await t.call(keyRef, "POST", PATH, b);
    expect(reply.status, JSON.stringify(b)).toBe(status);
    expect(reply.body, JSON.stringify(b)).toMatchObject({
      type,
      status: "error",
      ...(message ? { message: expect.stringContaining(message) } : {}),
    });
    expect(await t.db.contact.count()).toBe(before);
  };

  it("403 for admin and super-admin roles, however spelled", async () => {
    for (const roles of [
      ["admin"],
      ["Admin"],
      ["technician", "ADMIN"],
      ["super_admin"],
      ["Super-Admin"],
      ["superadmin"],
      ["super admin"],
      [" admin "],
    ]) {
      await expectRefused("acme-key", body({ roles }), 403, "ForbiddenException");
    }
  });

  it("403 for a facility of another buyer company, 400 for an unknown facility", async () => {
    await expectRefused("acme-key", body({ facilityId: refs["globex-hq"] }), 403, "ForbiddenException");
    await expectRefused("globex-key", body({ facilityId: refs["acme-hq"] }), 403, "ForbiddenException");
    await expectRefused("acme-key", body({ facilityId: 987654 }), 400, "invalidInputDataException");
  });

  it("400 with a conflict message for an existing contact, whatever the case of the email", async () => {
    for (const email of [
      "alice@acme.example",
      "ALICE@acme.example",
      " Alice@Acme.Example ",
      "gina@globex.example",
      "bob@coolco.example",
    ]) {
      await expectRefused("acme-key", body({ email }), 400, "invalidInputDataException", "already exists");
    }
    // Also a contact written before emails were lowercased.
    await t.db.contact.create({
      data: { email: "Legacy.Case@acme.example", nameGiven: "L", nameFamily: "C", roles: [] },
    });
    contactsBefore++;
    await expectRefused(
      "acme-key",
      body({ email: "legacy.case@acme.example" }),
      400,
      "invalidInputDataException",
      "already exists",
    );
  });

  it("400 for an unrecognized epaCertificationType and an epaCertificationNumber over 64 characters", async () => {
    for (const epaCertificationType of ["type_iv", "", "universal-plus", "608"]) {
      await expectRefused(
        "acme-key",
        body({ epaCertificationType }),
        400,
        "invalidInputDataException",
        "epaCertificationType",
      );
    }
    await expectRefused(
      "acme-key",
      body({ epaCertificationNumber: "x".repeat(65) }),
      400,
      "invalidInputDataException",
      "epaCertificationNumber",
    );
  });

  it("accepts exactly 64 characters and every documented certification type", async () => {
    for (const epaCertificationType of ["type_i", "type_ii", "TYPE_III", "universal"]) {
      const reply = await t.call(
        "acme-key",
        "POST",
        PATH,
        body({ epaCertificationType, epaCertificationNumber: "9".repeat(64) }),
      );
      expect(reply.status, epaCertificationType).toBe(200);
      expect(reply.body.data.epaCertificationType).toBe(epaCertificationType.toLowerCase());
      contactsBefore++;
      jobsBefore++;
    }
  });

  it("400 for missing required fields, wrong types and invalid values", async () => {
    const bodies: unknown[] = [
      {},
      "not json at all",
      [],
      ...["email", "nameGiven", "nameFamily", "roles"].map((k) =>
        Object.fromEntries(Object.entries(body()).filter(([key]) => key !== k)),
      ),
      body({ email: 42 }),
      body({ email: "not-an-email" }),
      body({ email: "a@b" }),
      body({ email: null }),
      body({ nameGiven: "  " }),
      body({ nameFamily: "" }),
      body({ nameGiven: 7 }),
      body({ roles: [] }),
      body({ roles: [""] }),
      body({ roles: [1] }),
      body({ roles: null }),
      body({ facilityId: "abc" }),
      body({ facilityId: 1.5 }),
      body({ password: "short" }),
      body({ password: 12345678 }),
      body({ passwordResetRequired: "yes" }),
      body({ hasAccessToAllLocations: 1 }),
      body({ locationIds: ["a"] }),
      body({ locationIds: [refs["g-store"]] }),
      body({ locationIds: [refs["store-1"], 999999] }),
      body({ brandIds: [-1] }),
      body({ epaCertificationNumber: 608 }),
    ];
    for (const b of bodies) await expectRefused("acme-key", b, 400, "invalidInputDataException");
  });

  it("400 when the key's contact may not provision users (read-only roles)", async () => {
    await expectRefused("viewer-key", body(), 400, "invalidInputDataException", "roles");
  });

  it("401 for a supplier key on the buyer path, and for no key", async () => {
    await expectRefused("coolco-key", body(), 401, "UnauthorizedException");
    await expectRefused(null, body(), 401, "UnauthorizedException");
  });

  it("left no contact and no queued invite behind", async () => {
    expect(await t.db.contact.count()).toBe(contactsBefore);
    expect(await queued()).toBe(jobsBefore);
  });
});
