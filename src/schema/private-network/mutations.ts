import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires } from "../core/permissions.ts";
import {
  SubContractorInviteInput,
  SubContractorInviteResultRef,
  SupplierSupplierRelationshipInput,
  SupplierSupplierRelationshipRef,
} from "./types.ts";
import { createRelationship, deleteRelationship, inviteSubContractor, updateRelationship } from "./rules.ts";

const PATH = "/private_network/supplier_supplier_relationships";

builder.mutationField("createSupplierSupplierRelationship", (t) =>
  t.prismaField({
    ...restRoute(
      {
        interfaces: ["supplier"],
        method: "POST",
        path: PATH,
        type: "SupplierSupplierRelationship",
        bodyArg: "input",
        errors: { "409": "The facility is already in the key's facility's private network" },
      },
      requires("network.write"),
    ),
    description:
      "Adds a sub-contractor facility to the key's facility's private network; 409 when it is already there.",
    type: SupplierSupplierRelationshipRef,
    args: {
      input: t.arg({
        type: SupplierSupplierRelationshipInput,
        required: true,
        description: "The sub-contractor facility and its routing emails",
      }),
    },
    resolve: (query, _root, { input }, ctx) => createRelationship(ctx, input, query),
  }),
);

builder.mutationField("updateSupplierSupplierRelationship", (t) =>
  t.prismaField({
    ...restRoute(
      { interfaces: ["supplier"], method: "PUT", path: PATH, type: "SupplierSupplierRelationship", bodyArg: "input" },
      requires("network.write"),
    ),
    description: "Updates the routing emails of the relationship with supplierFacilityId; 404 when there is none.",
    type: SupplierSupplierRelationshipRef,
    args: {
      input: t.arg({
        type: SupplierSupplierRelationshipInput,
        required: true,
        description: "The sub-contractor facility and the routing emails to set",
      }),
    },
    resolve: (query, _root, { input }, ctx) => updateRelationship(ctx, input, query),
  }),
);

builder.mutationField("deleteSupplierSupplierRelationship", (t) =>
  t.prismaField({
    ...restRoute(
      {
        interfaces: ["supplier"],
        method: "DELETE",
        path: `${PATH}/delete_by_supplier/:supplierFacilityId`,
        type: "SupplierSupplierRelationship",
      },
      requires("network.write"),
    ),
    description: "Removes the relationship with the sub-contractor facility and returns it; 404 when there is none.",
    type: SupplierSupplierRelationshipRef,
    args: {
      supplierFacilityId: t.arg.int({
        required: true,
        description: "The sub-contractor facility whose relationship is removed",
      }),
    },
    resolve: (query, _root, { supplierFacilityId }, ctx) => deleteRelationship(ctx, supplierFacilityId, query),
  }),
);

builder.mutationField("inviteSubContractor", (t) =>
  t.field({
    ...restRoute(
      {
        interfaces: ["supplier"],
        method: "POST",
        path: `${PATH}/:sfId/invite/:fromEmail/:toEmail/name/:fN/:lN`,
        type: "SubContractorInviteResult",
        bodyArg: "input",
        envelope: false,
      },
      requires("network.write"),
    ),
    description:
      "Invites toEmail to the sub-contractor facility sfId on behalf of fromEmail (a contact of the key's facility): creates the " +
      "contact when new and mails the invite (CC fromEmail). Answers {code: subContractorInviteSent, message: Emails sent!}.",
    type: SubContractorInviteResultRef,
    args: {
      sfId: t.arg.int({
        required: true,
        description: "The sub-contractor facility of an existing relationship of the key's facility",
      }),
      fromEmail: t.arg.string({
        required: true,
        description: "Email of the referrer at the key's facility (named in the mail and copied)",
      }),
      toEmail: t.arg.string({ required: true, description: "Email of the person invited" }),
      fN: t.arg.string({
        required: true,
        description: "First name of the invitee, used when the email is not a known contact",
      }),
      lN: t.arg.string({
        required: true,
        description: "Last name of the invitee, used when the email is not a known contact",
      }),
      input: t.arg({ type: SubContractorInviteInput, description: "An optional note for the invite mail" }),
    },
    resolve: (_root, { input, ...args }, ctx) => inviteSubContractor(ctx, { ...args, note: input?.note }),
  }),
);
