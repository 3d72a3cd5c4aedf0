import { builder } from "../core/builder.ts";
import { relationQuery } from "../core/relations.ts";
import { assetModelScope } from "./rules.ts";

export const AssetModelRef = builder.prismaObject("AssetModel", {
  fields: (t) => ({
    id: t.exposeInt("id"),
    modelName: t.exposeString("modelName"),
    assetTypeId: t.exposeInt("assetTypeId"),
    buyerCompanyId: t.exposeInt("buyerCompanyId"),
    manuals: t.expose("manuals", { type: "JSON" }),
    specs: t.expose("specs", { type: "JSON" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

const AttachmentInput = builder.inputType("AssetModelAttachmentInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    url: t.string({ required: true, description: "http or https URL" }),
    contentType: t.string(),
  }),
});

export const AssetModelInput = builder.inputType("AssetModelInput", {
  fields: (t) => ({
    modelName: t.string({ required: true }),
    assetTypeId: t.int({ required: true, description: "An asset type of the key's company" }),
    manuals: t.field({ type: [AttachmentInput] }),
    specs: t.field({ type: [AttachmentInput] }),
  }),
});

// The dashboard graph (GraphQL only): an asset's model, within the key's asset model scope.
builder.prismaObjectField("Asset", "model", (t) =>
  t.relation("assetModel", {
    nullable: true,
    subGraphs: ["graphql"],
    description: "The asset's model; null when it has none or the key may not read asset models",
    query: relationQuery(assetModelScope),
  }),
);
