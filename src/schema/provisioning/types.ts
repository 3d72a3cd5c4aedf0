import { builder } from "../core/builder.ts";
import { EPA_CERTIFICATION_TYPES, CONTACT_LIMITS, type ProvisionedContact } from "./rules.ts";

export const ProvisionUserInput = builder.inputType("ProvisionUserInput", {
  description: "Body of a buyer user provisioning",
  fields: (t) => ({
    email: t.string({ required: true, description: "Stored lowercased; must not belong to an existing contact" }),
    nameGiven: t.string({ required: true, description: "The user's given (first) name; required" }),
    nameFamily: t.string({ required: true, description: "The user's family (last) name; required" }),
    roles: t.stringList({ required: true, description: "At least one; admin and super-admin roles give 403" }),
    facilityId: t.int({ description: "Buyer facility of the key's company; defaults to the key's facility" }),
    password: t.string({
      description: `Creates the login now (${CONTACT_LIMITS.passwordMin} to ${CONTACT_LIMITS.passwordMax} characters); without it the invite asks the user to sign up`,
    }),
    passwordResetRequired: t.boolean({ description: "Forces a password change on first login" }),
    hasAccessToAllLocations: t.boolean({ description: "Defaults to true unless locationIds are given" }),
    locationIds: t.intList({ description: "Locations of the key's company" }),
    brandIds: t.intList({
      description: "Brands whose locations the user may see walkthroughs at; empty means no brand restriction",
    }),
    epaCertificationType: t.string({ description: `EPA Section 608 type: ${EPA_CERTIFICATION_TYPES.join(", ")}` }),
    epaCertificationNumber: t.string({ description: `Free-form, at most ${CONTACT_LIMITS.epaNumber} characters` }),
  }),
});

// Its own type name: the password hash is on the row but never a field here.
export const ProvisionedContactRef = builder.objectRef<ProvisionedContact>("ProvisionedContact").implement({
  description: "A buyer contact created by provisioning",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The contact's id" }),
    email: t.exposeString("email", { description: "The contact's email, lowercased" }),
    nameGiven: t.exposeString("nameGiven", { description: "The contact's given (first) name" }),
    nameFamily: t.exposeString("nameFamily", { description: "The contact's family (last) name" }),
    roles: t.exposeStringList("roles", { description: "Roles granted to the contact" }),
    buyerFacilityId: t.exposeInt("buyerFacilityId", {
      nullable: true,
      description: "Id of the buyer facility the contact belongs to",
    }),
    hasAccessToAllLocations: t.exposeBoolean("hasAccessToAllLocations", {
      description: "Whether the contact sees every location of the company (else only locationIds)",
    }),
    locationIds: t.exposeIntList("locationIds", {
      description: "Locations the contact may see when hasAccessToAllLocations is false",
    }),
    brandIds: t.exposeIntList("brandIds", {
      description: "Brands that narrow the locations the contact sees walkthroughs at; empty for no restriction",
    }),
    epaCertificationType: t.exposeString("epaCertificationType", {
      nullable: true,
      description: "The contact's EPA Section 608 certification type; null when none",
    }),
    epaCertificationNumber: t.exposeString("epaCertificationNumber", {
      nullable: true,
      description: "The contact's EPA certification number (free-form); null when none",
    }),
    passwordResetRequired: t.exposeBoolean("passwordResetRequired", {
      description: "Whether the user must change the password on first login",
    }),
    inviteStatus: t.string({
      description: "login_created when a password was given, else invited (the user still has to sign up)",
      resolve: (c) => (c.passwordHash ? "login_created" : "invited"),
    }),
  }),
});
