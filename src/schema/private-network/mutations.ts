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
    args: { input: t.arg({ type: SupplierSupplierRelationshipInput, required: true }) },
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
    args: { input: t.arg({ type: SupplierSupplierRelationshipInput, required: true }) },
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
    args: { supplierFacilityId: t.arg.int({ required: true }) },
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
      sfId: t.arg.int({ required: true }),
      fromEmail: t.arg.string({ required: true }),
      toEmail: t.arg.string({ required: true }),
      fN: t.arg.string({ required: true }),
      lN: t.arg.string({ required: true }),
      input: t.arg({ type: SubContractorInviteInput }),
    },
    resolve: (_root, { input, ...args }, ctx) => inviteSubContractor(ctx, { ...args, note: input?.note }),
  }),
);
