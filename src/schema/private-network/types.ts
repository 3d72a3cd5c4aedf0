import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { privateNetworkScope } from "./rules.ts";
import { pageType } from "../core/list.ts";
import { SUB_CONTRACTOR_LIMITS } from "./rules.ts";

export const SupplierSupplierRelationshipRef = builder.prismaNode("SupplierSupplierRelationship", {
  ...scopedNode(privateNetworkScope),
  description: "A sub-contractor facility in the private network of the key's supplier facility",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The sub-contractor relationship's id" }),
    sourceSupplierFacilityId: t.exposeInt("sourceSupplierFacilityId", { description: "The key's facility" }),
    supplierFacilityId: t.exposeInt("supplierFacilityId", { description: "The sub-contractor facility" }),
    supplierFacilityName: t.string({
      description: "Display name of the sub-contractor facility",
      select: { supplierFacility: { select: { name: true } } },
      resolve: (r) => r.supplierFacility.name,
    }),
    workOrdersRoutedTo: t.exposeStringList("workOrdersRoutedTo", {
      description: "Emails receiving work dispatched to the sub-contractor",
    }),
    supplierAccountEmails: t.exposeStringList("supplierAccountEmails", {
      description: "The sub-contractor's account-level contacts",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the relationship was created" }),
    updatedAt: t.expose("updatedAt", {
      type: "DateTime",
      description: "When the relationship (its routing emails) was last changed",
    }),
  }),
});

export const SupplierSupplierRelationshipPage = pageType(
  "SupplierSupplierRelationship",
  SupplierSupplierRelationshipRef,
);

const ROUTING = `at most ${SUB_CONTRACTOR_LIMITS.routingEmails} emails; omitted keeps the stored list (empty on create), null or [] clears`;

export const SupplierSupplierRelationshipInput = builder.inputType("SupplierSupplierRelationshipInput", {
  description: "Body of a sub-contractor relationship create or routing update",
  fields: (t) => ({
    supplierFacilityId: t.int({ required: true, description: "The sub-contractor facility" }),
    workOrdersRoutedTo: t.field({
      type: "JSON",
      description: `Array of emails receiving work dispatched to the sub-contractor: ${ROUTING}`,
    }),
    supplierAccountEmails: t.field({
      type: "JSON",
      description: `Array of the sub-contractor's account-level contact emails: ${ROUTING}`,
    }),
  }),
});

export const SubContractorInviteInput = builder.inputType("SubContractorInviteInput", {
  description: "Optional body of a sub-contractor invite",
  fields: (t) => ({
    note: t.string({ description: `Added to the invite mail (at most ${SUB_CONTRACTOR_LIMITS.note} characters)` }),
  }),
});

export const SubContractorInviteResultRef = builder
  .objectRef<{ code: string; message: string }>("SubContractorInviteResult")
  .implement({
    description: "Outcome of a sub-contractor invite",
    fields: (t) => ({
      code: t.exposeString("code", { description: "subContractorInviteSent when the invite mail was sent" }),
      message: t.exposeString("message", { description: "Human-readable outcome (Emails sent!)" }),
    }),
  });
