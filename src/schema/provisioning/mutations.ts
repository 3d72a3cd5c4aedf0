// POST /v1/buyer/user/provision and GraphQL `provisionUser`: creates a buyer contact and sends the invite.
import { builder } from "../builder.ts";
import { can, rolesFor } from "../identity/permissions.ts";
import { restRoute } from "../common/interfaces.ts";
import { badInput, forbidden } from "../common/errors.ts";
import { Prisma } from "../../db.ts";
import {
  assertNoReservedRoles, conflictMessage, EPA_CERTIFICATION_TYPES, hashPassword, inviteJobId, inviteMail, LIMITS, normalise,
} from "./rules.ts";

const ProvisionUserInput = builder.inputType("ProvisionUserInput", {
  fields: (t) => ({
    email: t.string({ required: true, description: "Stored lowercased; must not belong to an existing contact" }),
    nameGiven: t.string({ required: true }),
    nameFamily: t.string({ required: true }),
    roles: t.stringList({ required: true, description: "At least one; admin and super-admin roles give 403" }),
    facilityId: t.int({ description: "Buyer facility of the key's company; defaults to the key's facility" }),
    password: t.string({ description: `Creates the login now (${LIMITS.passwordMin} to ${LIMITS.passwordMax} characters); without it the invite asks the user to sign up` }),
    passwordResetRequired: t.boolean({ description: "Forces a password change on first login" }),
    hasAccessToAllLocations: t.boolean({ description: "Defaults to true unless locationIds are given" }),
    locationIds: t.intList({ description: "Locations of the key's company" }),
    brandIds: t.intList(),
    epaCertificationType: t.string({ description: `EPA Section 608 type: ${EPA_CERTIFICATION_TYPES.join(", ")}` }),
    epaCertificationNumber: t.string({ description: `Free-form, at most ${LIMITS.epaNumber} characters` }),
  }),
});

interface ProvisionedContact {
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

// Its own type name: the password hash is on the row but never a field here.
const ProvisionedContactRef = builder.objectRef<ProvisionedContact>("ProvisionedContact").implement({
  description: "A buyer contact created by provisioning",
  fields: (t) => ({
    id: t.exposeInt("id"),
    email: t.exposeString("email"),
    nameGiven: t.exposeString("nameGiven"),
    nameFamily: t.exposeString("nameFamily"),
    roles: t.exposeStringList("roles"),
    buyerFacilityId: t.exposeInt("buyerFacilityId", { nullable: true }),
    hasAccessToAllLocations: t.exposeBoolean("hasAccessToAllLocations"),
    locationIds: t.exposeIntList("locationIds"),
    brandIds: t.exposeIntList("brandIds"),
    epaCertificationType: t.exposeString("epaCertificationType", { nullable: true }),
    epaCertificationNumber: t.exposeString("epaCertificationNumber", { nullable: true }),
    passwordResetRequired: t.exposeBoolean("passwordResetRequired"),
    inviteStatus: t.string({
      description: "login_created when a password was given, else invited (the user still has to sign up)",
      resolve: (c) => (c.passwordHash ? "login_created" : "invited"),
    }),
  }),
});

const isUniqueViolation = (e: unknown) => e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002";

builder.mutationField("provisionUser", (t) =>
  t.field({
    ...restRoute({ interfaces: ["buyer"], method: "POST", path: "/user/provision", type: "Contact", bodyArg: "input" }),
    type: ProvisionedContactRef,
    args: { input: t.arg({ type: ProvisionUserInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const { db, viewer } = ctx;
      assertNoReservedRoles(input.roles);
      if (!can(viewer, "user.provision")) {
        throw badInput(`provisioning users needs one of the roles ${rolesFor("user.provision").join(", ")}`);
      }
      const v = normalise(input);
      const portalUrl = ctx.portalUrl ?? "";

      const facilityId = input.facilityId ?? viewer.buyerFacilityId!;
      const facility = await db.buyerFacility.findUnique({ where: { id: facilityId }, include: { buyerCompany: true } });
      if (!facility) throw badInput(`facilityId ${facilityId} is not a buyer facility`);
      if (facility.buyerCompanyId !== viewer.buyerCompanyId) throw forbidden(`facility ${facilityId} belongs to another buyer company`);
      if (v.locationIds.length) {
        const own = await db.location.findMany({ where: { id: { in: v.locationIds }, buyerCompanyId: viewer.buyerCompanyId! }, select: { id: true } });
        const missing = v.locationIds.filter((id) => !own.some((l) => l.id === id));
        // Unknown and foreign ids get the same answer, so other tenants' ids cannot be probed.
        if (missing.length) throw badInput(`locationIds ${missing.join(", ")} are not locations of this company`);
      }
      // Rows written before emails were lowercased may differ in case only: compare without case.
      if (await db.contact.findFirst({ where: { email: { equals: v.email, mode: "insensitive" } }, select: { id: true } })) {
        throw badInput(conflictMessage(v.email));
      }

      const { password, ...fields } = v;
      const message = inviteMail({
        email: v.email, nameGiven: v.nameGiven, companyName: facility.buyerCompany.name, invitedBy: viewer.displayName,
        withPassword: password !== null, passwordResetRequired: v.passwordResetRequired, portalUrl,
      });
      const passwordHash = password ? await hashPassword(password) : null;
      // The contact and its invite commit together (mail outbox): no invite for a contact that does not
      // exist, and no contact without its invite; the worker's relay queues it under a job id derived
      // from the contact id, so it is sent once.
      let contact: ProvisionedContact;
      try {
        contact = await db.$transaction(async (tx) => {
          const created = await tx.contact.create({
            data: { ...fields, buyerFacilityId: facility.id, passwordHash, invitedAt: ctx.now() },
          });
          await tx.mailOutbox.create({ data: { jobId: inviteJobId(created.id), message: message as object } });
          return created;
        });
      } catch (e) {
        if (isUniqueViolation(e)) throw badInput(conflictMessage(v.email)); // lost the race to a concurrent request
        throw e;
      }
      return contact;
    },
  }),
);
