import { builder } from "../core/builder.ts";
import { EPA_CERTIFICATION_TYPES, CONTACT_LIMITS, type ProvisionedContact } from "./rules.ts";

export const ProvisionUserInput = builder.inputType("ProvisionUserInput", {
  fields: (t) => ({
    email: t.string({ required: true, description: "Stored lowercased; must not belong to an existing contact" }),
    nameGiven: t.string({ required: true }),
    nameFamily: t.string({ required: true }),
    roles: t.stringList({ required: true, description: "At least one; admin and super-admin roles give 403" }),
    facilityId: t.int({ description: "Buyer facility of the key's company; defaults to the key's facility" }),
    password: t.string({
      description: `Creates the login now (${CONTACT_LIMITS.passwordMin} to ${CONTACT_LIMITS.passwordMax} characters); without it the invite asks the user to sign up`,
    }),
    passwordResetRequired: t.boolean({ description: "Forces a password change on first login" }),
    hasAccessToAllLocations: t.boolean({ description: "Defaults to true unless locationIds are given" }),
    locationIds: t.intList({ description: "Locations of the key's company" }),
    brandIds: t.intList(),
    epaCertificationType: t.string({ description: `EPA Section 608 type: ${EPA_CERTIFICATION_TYPES.join(", ")}` }),
    epaCertificationNumber: t.string({ description: `Free-form, at most ${CONTACT_LIMITS.epaNumber} characters` }),
  }),
});

// Its own type name: the password hash is on the row but never a field here.
export const ProvisionedContactRef = builder.objectRef<ProvisionedContact>("ProvisionedContact").implement({
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
