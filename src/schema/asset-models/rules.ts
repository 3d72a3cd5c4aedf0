// Asset models: created by buyers, and matched by name within an asset type (pg_trgm similarity).
import type { Context } from "../core/context.ts";
import { badInput, notFound } from "../core/errors.ts";
import { buyerOwnedScope, findInScope, NOTHING } from "../core/tenancy.ts";
import type { Viewer } from "../core/viewer.ts";
import { isHttpUrl } from "../core/url.ts";
import { assetTypeScope } from "../asset-types/public.ts";

/**
 * The least pg_trgm similarity (0..1) a model name must reach to count as a match: pg_trgm's own
 * default for its `%` operator. "Carrier 48TC" scores 0.76 against "Carrier 48TC-D08"; "48TC" alone
 * scores 0.29 and is not a match.
 */
export const FUZZY_MATCH_THRESHOLD = 0.3;

/** Asset models are read by buyer keys only (the fuzzy match is a buyer route): their company's. */
export const assetModelScope = (viewer: Viewer) => (viewer.kind === "buyer" ? buyerOwnedScope(viewer) : NOTHING);

type Attachment = { name: string; url: string; contentType?: string | null };

export interface AssetModelInput {
  modelName: string;
  assetTypeId: number;
  manuals?: readonly Attachment[] | null;
  specs?: readonly Attachment[] | null;
}

/** Checked attachments as stored: [{name, url, contentType?}]; omitted or null is []. */
function attachments(field: string, list: readonly Attachment[] | null | undefined) {
  return (list ?? []).map(({ name, url, contentType }, i) => {
    if (!name.trim()) throw badInput(`${field}[${i}].name must not be blank`);
    if (!isHttpUrl(url)) throw badInput(`${field}[${i}].url must be an http(s) URL, got ${JSON.stringify(url)}`);
    return contentType ? { name, url, contentType } : { name, url };
  });
}

export async function createAssetModel(ctx: Context, input: AssetModelInput, query: object) {
  const modelName = input.modelName.trim();
  if (!modelName) throw badInput("modelName must not be blank");
  if (modelName.length > MAX_MODEL_NAME) throw badInput(`modelName is limited to ${MAX_MODEL_NAME} characters`);
  const data = { modelName, manuals: attachments("manuals", input.manuals), specs: attachments("specs", input.specs) };
  const buyerCompanyId = ctx.viewer.buyerCompanyId!;
  if (!(await ctx.db.assetType.count({ where: { id: input.assetTypeId, buyerCompanyId } }))) {
    throw badInput(`assetTypeId ${input.assetTypeId} is not an asset type of this company`);
  }
  return ctx.db.assetModel.create({ ...query, data: { ...data, assetTypeId: input.assetTypeId, buyerCompanyId } });
}

/** Longest name a fuzzy match compares (similarity costs time in the name's length). */
const MAX_MODEL_NAME = 200;

/** The model of the asset type whose name is most similar to `name`; 404 below the threshold. */
export async function closestModel(ctx: Context, rawName: string, assetTypeId: number, query: object) {
  const name = rawName.trim();
  if (!name) throw badInput("name must not be blank");
  if (name.length > MAX_MODEL_NAME) throw badInput(`name is limited to ${MAX_MODEL_NAME} characters`);
  // An unknown asset type is a 404, another company's a 400, like any single read.
  const type = await findInScope<{ id: number; buyerCompanyId: number }>(
    ctx.db.assetType,
    assetTypeId,
    assetTypeScope(ctx.viewer),
  );
  // The (buyerCompanyId, assetTypeId) index narrows to one type's models before scoring; id breaks ties.
  const [best] = await ctx.db.$queryRaw<{ id: number }[]>`
    SELECT id FROM "AssetModel"
     WHERE "buyerCompanyId" = ${type.buyerCompanyId} AND "assetTypeId" = ${type.id}
       AND similarity("modelName", ${name}) >= ${FUZZY_MATCH_THRESHOLD}
     ORDER BY similarity("modelName", ${name}) DESC, id
     LIMIT 1`;
  if (!best) throw notFound(`no asset model close to ${JSON.stringify(name)} in asset type ${type.id}`);
  return ctx.db.assetModel.findUniqueOrThrow({ ...query, where: { id: best.id } });
}
