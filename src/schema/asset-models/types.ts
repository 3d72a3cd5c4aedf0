import { builder } from "../core/builder.ts";
import { relationQuery } from "../core/relations.ts";
import { assetModelScope } from "./rules.ts";

export const AssetModelRef = builder.prismaObject("AssetModel", {
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The asset model's id" }),
    modelName: t.exposeString("modelName", { description: "Name of the model (what the fuzzy match compares)" }),
    assetTypeId: t.exposeInt("assetTypeId", { description: "Id of the asset type the model belongs to" }),
    buyerCompanyId: t.exposeInt("buyerCompanyId", { description: "Id of the buyer company that owns the model" }),
    manuals: t.expose("manuals", {
      type: "JSON",
      description: "The model's manuals: an array of {name, url, contentType}",
    }),
    specs: t.expose("specs", {
      type: "JSON",
      description: "The model's spec sheets: an array of {name, url, contentType}",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the model was created" }),
  }),
  description: "A make and model of an asset type in a buyer company's catalog, with its manuals and spec sheets",
});

const AttachmentInput = builder.inputType("AssetModelAttachmentInput", {
  description: "A document attached to an asset model (a manual or a spec sheet)",
  fields: (t) => ({
    name: t.string({ required: true, description: "Display name of the document" }),
    url: t.string({ required: true, description: "http or https URL" }),
    contentType: t.string({ description: "MIME type of the document (e.g. application/pdf)" }),
  }),
});

export const AssetModelInput = builder.inputType("AssetModelInput", {
  description: "Body of an asset model create",
  fields: (t) => ({
    modelName: t.string({ required: true, description: "Name of the model; required" }),
    assetTypeId: t.int({ required: true, description: "An asset type of the key's company" }),
    manuals: t.field({ type: [AttachmentInput], description: "The model's manuals" }),
    specs: t.field({ type: [AttachmentInput], description: "The model's spec sheets" }),
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
