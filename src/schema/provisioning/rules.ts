// Buyer user provisioning (POST /v1/buyer/user/provision): input rules, password hashing, invite mail.
import crypto from "node:crypto";
import { promisify } from "node:util";
import { Prisma } from "../../db.ts";
import type { Context } from "../core/context.ts";
import { badInput, forbidden } from "../core/errors.ts";
import { isEmail } from "../core/email.ts";
import { queueMail, type MailMessage } from "../mail/public.ts";
import { inTransaction } from "../core/transaction.ts";

/** EPA Section 608 technician certification types; matched case-insensitively, stored in this form. */
export const EPA_CERTIFICATION_TYPES = ["type_i", "type_ii", "type_iii", "universal"] as const;

/** Roles that only the operator may grant (rule 1). Compared without case, spaces, "_" or "-". */
const RESERVED_ROLES = new Set(["admin", "superadmin"]);

/** Limits of a provisioned contact's fields (and of the id lists it is given). */
export const CONTACT_LIMITS = {
  email: 254,
  name: 100,
  role: 64,
  roles: 20,
  passwordMin: 8,
  passwordMax: 128,
  epaNumber: 64,
  ids: 1000,
};

export interface ProvisionInput {
  email: string;
  nameGiven: string;
  nameFamily: string;
  roles: string[];
  facilityId?: number | null;
  password?: string | null;
  passwordResetRequired?: boolean | null;
  hasAccessToAllLocations?: boolean | null;
  locationIds?: number[] | null;
  brandIds?: number[] | null;
  epaCertificationType?: string | null;
  epaCertificationNumber?: string | null;
}

/** Rule 1, checked first: an admin role is denied whatever else the body holds. */
function assertNoReservedRoles(roles: string[]): void {
  const reserved = roles.filter((role) => RESERVED_ROLES.has(role.toLowerCase().replace(/[\s_-]/g, "")));
  if (reserved.length) throw forbidden(`roles ${reserved.join(", ")} cannot be provisioned through the API`);
}

/** The body's own checks (no database): returns the normalised values to store. */
function normalise(input: ProvisionInput) {
  const problems: string[] = [];
  const email = input.email.trim().toLowerCase();
  if (!isEmail(email)) problems.push("email must be a valid email address");
  const nameGiven = input.nameGiven.trim();
  const nameFamily = input.nameFamily.trim();
  if (!nameGiven || nameGiven.length > CONTACT_LIMITS.name)
    problems.push(`nameGiven must be 1 to ${CONTACT_LIMITS.name} characters`);
  if (!nameFamily || nameFamily.length > CONTACT_LIMITS.name)
    problems.push(`nameFamily must be 1 to ${CONTACT_LIMITS.name} characters`);
  const roles = [...new Set(input.roles.map((r) => r.trim().toLowerCase()))];
  if (!roles.length || roles.length > CONTACT_LIMITS.roles || roles.some((r) => !r || r.length > CONTACT_LIMITS.role)) {
    problems.push(
      `roles must be 1 to ${CONTACT_LIMITS.roles} non-blank role names of at most ${CONTACT_LIMITS.role} characters`,
    );
  }
  const password = input.password ?? null;
  if (
    password !== null &&
    (password.length < CONTACT_LIMITS.passwordMin || password.length > CONTACT_LIMITS.passwordMax)
  ) {
    problems.push(`password must be ${CONTACT_LIMITS.passwordMin} to ${CONTACT_LIMITS.passwordMax} characters`);
  }
  let epaCertificationType: string | null = null;
  if (input.epaCertificationType != null) {
    epaCertificationType = input.epaCertificationType.trim().toLowerCase();
    if (!(EPA_CERTIFICATION_TYPES as readonly string[]).includes(epaCertificationType)) {
      problems.push(`epaCertificationType must be one of ${EPA_CERTIFICATION_TYPES.join(", ")}`);
    }
  }
  const epaCertificationNumber = input.epaCertificationNumber ?? null;
  if (epaCertificationNumber !== null && epaCertificationNumber.length > CONTACT_LIMITS.epaNumber) {
    problems.push(`epaCertificationNumber must be at most ${CONTACT_LIMITS.epaNumber} characters`);
  }
  const ids = (name: string, list: number[] | null | undefined) => {
    const unique = [...new Set(list ?? [])];
    if (unique.length > CONTACT_LIMITS.ids || unique.some((id) => id <= 0))
      problems.push(`${name} must be at most ${CONTACT_LIMITS.ids} positive ids`);
    return unique;
  };
  const locationIds = ids("locationIds", input.locationIds);
  const brandIds = ids("brandIds", input.brandIds);
  if (problems.length) throw badInput(problems.join("; "));
  return {
    email,
    nameGiven,
    nameFamily,
    roles,
    password,
    epaCertificationType,
    epaCertificationNumber,
    locationIds,
    brandIds,
    passwordResetRequired: input.passwordResetRequired ?? false,
    // Omitted: a contact restricted to listed locations does not also get all of them.
    hasAccessToAllLocations: input.hasAccessToAllLocations ?? locationIds.length === 0,
  };
}

const conflictMessage = (email: string) => `an account or contact with email ${email} already exists`;

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;
const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

/** `scrypt$N$r$p$<salt b64url>$<hash b64url>`: the parameters travel with the hash so they can be raised later. */
async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), hash.toString("base64url")].join("$");
}

/** One invite per contact: the mail outbox holds one row per job id. */
const inviteJobId = (contactId: number) => `invite-contact-${contactId}`;

interface ContactInviteFacts {
  email: string;
  nameGiven: string;
  companyName: string;
  invitedBy: string;
  withPassword: boolean;
  passwordResetRequired: boolean;
  portalUrl: string;
}

/** The invite mail. The password itself is never mailed: whoever set it hands it over. */
function contactInviteMail(f: ContactInviteFacts): MailMessage {
  const portal = f.portalUrl.replace(/\/+$/, "");
  const lines = [
    `Hello ${f.nameGiven},`,
    "",
    `${f.invitedBy} has invited you to ${f.companyName} on the work order portal.`,
    "",
  ];
  if (f.withPassword) {
    lines.push(
      "Your login has been created. Sign in with your email address and the password you were given:",
      `${portal}/login`,
    );
    if (f.passwordResetRequired) lines.push("", "You will be asked to change your password when you first sign in.");
  } else {
    lines.push("To accept the invitation, sign up here:", `${portal}/signup?email=${encodeURIComponent(f.email)}`);
  }
  return { to: f.email, subject: `You're invited to ${f.companyName}`, text: `${lines.join("\n")}\n` };
}

export interface ProvisionedContact {
  id: number;
  email: string;
  nameGiven: string;
  nameFamily: string;
  roles: string[];
  buyerFacilityId: number | null;
  hasAccessToAllLocations: boolean;
  locationIds: number[];
  brandIds: number[];
  epaCertificationType: string | null;
  epaCertificationNumber: string | null;
  passwordResetRequired: boolean;
  passwordHash: string | null;
}

const isUniqueViolation = (e: unknown) => e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002";

/**
 * Rules 1-6 of provisioning: the contact and its invite mail commit together (mail outbox), so there is
 * no invite for a contact that does not exist and no contact without its invite.
 */
export async function provisionUser(ctx: Context, input: ProvisionInput): Promise<ProvisionedContact> {
  const { db, viewer } = ctx;
  assertNoReservedRoles(input.roles);
  const v = normalise(input);
  const portalUrl = ctx.portalUrl ?? "";

  const facilityId = input.facilityId ?? viewer.buyerFacilityId!;
  const facility = await db.buyerFacility.findUnique({ where: { id: facilityId }, include: { buyerCompany: true } });
  if (!facility) throw badInput(`facilityId ${facilityId} is not a buyer facility`);
  if (facility.buyerCompanyId !== viewer.buyerCompanyId)
    throw forbidden(`facility ${facilityId} belongs to another buyer company`);
  if (v.locationIds.length) {
    const own = await db.location.findMany({
      where: { id: { in: v.locationIds }, buyerCompanyId: viewer.buyerCompanyId! },
      select: { id: true },
    });
    const missing = v.locationIds.filter((id) => !own.some((l) => l.id === id));
    // Unknown and foreign ids get the same answer, so other tenants' ids cannot be probed.
    if (missing.length) throw badInput(`locationIds ${missing.join(", ")} are not locations of this company`);
  }
  // Rows written before emails were lowercased may differ in case only: compare without case.
  if (
    await db.contact.findFirst({ where: { email: { equals: v.email, mode: "insensitive" } }, select: { id: true } })
  ) {
    throw badInput(conflictMessage(v.email));
  }

  const { password, ...fields } = v;
  const message = contactInviteMail({
    email: v.email,
    nameGiven: v.nameGiven,
    companyName: facility.buyerCompany.name,
    invitedBy: viewer.displayName,
    withPassword: password !== null,
    passwordResetRequired: v.passwordResetRequired,
    portalUrl,
  });
  const passwordHash = password ? await hashPassword(password) : null;
  // The invite's job id derives from the contact id, so it is sent once.
  let contact: ProvisionedContact;
  try {
    contact = await inTransaction(db, async (tx) => {
      const created = await tx.contact.create({
        data: { ...fields, buyerFacilityId: facility.id, passwordHash, invitedAt: ctx.now() },
      });
      await queueMail(tx, inviteJobId(created.id), message);
      return created;
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw badInput(conflictMessage(v.email)); // lost the race to a concurrent request
    throw e;
  }
  return contact;
}
