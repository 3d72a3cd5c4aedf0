// Asset models: created by buyers, and matched by name within an asset type (pg_trgm similarity).
import { builder } from "../builder.ts";
import { restRoute } from "../common/interfaces.ts";
import { badInput, notFound, outOfScope } from "../common/errors.ts";
import { findInScope } from "../common/tenancy.ts";
import { can } from "../identity/permissions.ts";
import { AssetModelRef } from "./types.ts";
import { assetTypeScope } from "./rules.ts";

/**
 * The least pg_trgm similarity (0..1) a model name must reach to count as a match: pg_trgm's own
 * default for its `%` operator (pg_trgm.similarity_threshold). "Carrier 48TC" scores 0.76 against
 * "Carrier 48TC-D08"; "48TC" alone scores 0.29 and is not a match.
 */
export const FUZZY_MATCH_THRESHOLD = 0.3;

const AttachmentInput = builder.inputType("AssetModelAttachmentInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    url: t.string({ required: true, description: "http or https URL" }),
    contentType: t.string(),
  }),
});

const AssetModelInput = builder.inputType("AssetModelInput", {
  fields: (t) => ({
    modelName: t.string({ required: true }),
    assetTypeId: t.int({ required: true, description: "An asset type of the key's company" }),
    manuals: t.field({ type: [AttachmentInput] }),
    specs: t.field({ type: [AttachmentInput] }),
  }),
});

type Attachment = { name: string; url: string; contentType?: string | null };

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/** Checked attachments as stored: [{name, url, contentType?}]; omitted or null is []. */
function attachments(field: string, list: readonly Attachment[] | null | undefined) {
  return (list ?? []).map(({ name, url, contentType }, i) => {
    if (!name.trim()) throw badInput(`${field}[${i}].name must not be blank`);
    if (!isHttpUrl(url)) throw badInput(`${field}[${i}].url must be an http(s) URL, got ${JSON.stringify(url)}`);
    return contentType ? { name, url, contentType } : { name, url };
  });
}

builder.mutationField("createAssetModel", (t) =>
  t.prismaField({
    ...restRoute({ interfaces: ["buyer"], method: "POST", path: "/asset/asset_models", type: "AssetModel", bodyArg: "input" }),
    type: AssetModelRef,
    args: { input: t.arg({ type: AssetModelInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      if (!can(ctx.viewer, "asset.write")) throw outOfScope("this key may not write asset models");
      const modelName = input.modelName.trim();
      if (!modelName) throw badInput("modelName must not be blank");
      const data = { modelName, manuals: attachments("manuals", input.manuals), specs: attachments("specs", input.specs) };
      const buyerCompanyId = ctx.viewer.buyerCompanyId!;
      if (!(await ctx.db.assetType.count({ where: { id: input.assetTypeId, buyerCompanyId } }))) {
        throw badInput(`assetTypeId ${input.assetTypeId} is not an asset type of this company`);
      }
      return ctx.db.assetModel.create({ ...query, data: { ...data, assetTypeId: input.assetTypeId, buyerCompanyId } });
    },
  }),
);

builder.queryField("assetModelFuzzy", (t) =>
  t.prismaField({
    ...restRoute({ interfaces: ["buyer"], method: "GET", path: "/asset/asset_models/fuzzy/:name/:assetTypeId", type: "AssetModel" }),
    description: `The model of the asset type whose name is most similar (pg_trgm) to name; 404 below ${FUZZY_MATCH_THRESHOLD}.`,
    type: AssetModelRef,
    args: { name: t.arg.string({ required: true }), assetTypeId: t.arg.int({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const name = args.name.trim();
      if (!name) throw badInput("name must not be blank");
      // An unknown asset type is a 404, another company's a 400, like any single read.
      const type = await findInScope<{ id: number; buyerCompanyId: number }>(ctx.db.assetType, args.assetTypeId, assetTypeScope(ctx.viewer));
      // The (buyerCompanyId, assetTypeId) index narrows to one type's models before scoring; id breaks ties.
      const [best] = await ctx.db.$queryRaw<{ id: number }[]>`
        SELECT id FROM "AssetModel"
         WHERE "buyerCompanyId" = ${type.buyerCompanyId} AND "assetTypeId" = ${type.id}
           AND similarity("modelName", ${name}) >= ${FUZZY_MATCH_THRESHOLD}
         ORDER BY similarity("modelName", ${name}) DESC, id
         LIMIT 1`;
      if (!best) throw notFound(`no asset model close to ${JSON.stringify(name)} in asset type ${type.id}`);
      return ctx.db.assetModel.findUniqueOrThrow({ ...query, where: { id: best.id } });
    },
  }),
);
