// Label catalogs (asset and work order labels) and the "PUT …/labels" replacement, written once for
// both kinds: a kind selects the catalog, a LabelLinks value selects the link table.
import type { Db, Tx } from "../../db.ts";
import type { LabelKind } from "../../generated/prisma/client.ts";
import type { Viewer } from "../core/viewer.ts";
import { badInput } from "../core/errors.ts";
import { NOTHING } from "../core/tenancy.ts";
import { findPage, isInt32, pageOf, type ListArgs, type ListSpec } from "../core/list.ts";
import { inTransaction } from "../core/transaction.ts";

export const LABEL_LIST: ListSpec = {
  filters: { id: "int", name: "string", color: "string", buyerCompanyId: "int" },
  sortable: ["id", "name", "color"],
  defaultSort: { field: "id", order: "asc" },
};

/**
 * The buyer company whose catalogs the key uses: a buyer key's own company, or the buyer whose
 * in-house team the supplier key belongs to. Third-party supplier keys have none (null): they see no
 * labels and write none, even when their buyer relationships let them read assets.
 */
export function labelCompanyOf(viewer: Viewer): number | null {
  if (viewer.kind === "buyer") return viewer.buyerCompanyId;
  return viewer.kind === "supplier" && !viewer.isThirdParty ? viewer.buyerCompanyId : null;
}

export const labelScope = (viewer: Viewer) => {
  const company = labelCompanyOf(viewer);
  return company === null ? NOTHING : { buyerCompanyId: company };
};

/** A work order's label links that the key reads: live work order labels of its catalog. */
export const workOrderLabelScope = (viewer: Viewer) => ({
  label: { AND: [labelScope(viewer), { kind: "work_order" as const, deletedAt: null }] },
});

/** A label refetched alone (node(id:)): in scope and not deleted, as the catalogs list it. */
export const liveLabelScope = (viewer: Viewer) => ({ AND: [labelScope(viewer), { deletedAt: null }] });

/**
 * The Label table narrowed to the live labels of one kind. Tenant scoping is applied on top of it, so
 * findInScope's "does it exist at all" probe also ignores deleted and other-kind labels: a deleted label,
 * or a work order label read as an asset label, is a 404 like any absent record.
 */
export function catalog(db: Db, kind: LabelKind) {
  const live = (where: object | undefined) => ({ AND: [where ?? {}, { kind, deletedAt: null }] });
  return {
    findFirst: (args: any) => db.label.findFirst({ ...args, where: live(args.where) }),
    findMany: (args: any) => db.label.findMany({ ...args, where: live(args.where) }),
    count: (args: any) => db.label.count({ ...args, where: live(args.where) }),
  };
}

export interface LabelListArgs extends ListArgs {
  search?: string | null;
  label?: string | null;
  no_pagination?: boolean | null;
}

/** `contains` text with LIKE's wildcards made literal (Prisma passes them through; "50%" means 50%). */
const literal = (text: string) => text.trim().replace(/[\\%_]/g, "\\$&");

/** One page of a catalog; `search` and `label` are both case-insensitive substrings of the name. */
export async function labelPage(db: Db, kind: LabelKind, viewer: Viewer, args: LabelListArgs, query: object) {
  const text = [args.search, args.label].filter((s): s is string => !!s?.trim());
  const scope = {
    AND: [labelScope(viewer), ...text.map((s) => ({ name: { contains: literal(s), mode: "insensitive" } }))],
  };
  const labels = catalog(db, kind);
  if (!args.no_pagination) return findPage(labels, scope, args, LABEL_LIST, query);
  // The whole catalog: offset and limit are ignored, sorting and filters still apply.
  const page = pageOf(args, LABEL_LIST);
  const data = await labels.findMany({ ...query, where: { AND: [scope, page.where] }, orderBy: page.orderBy });
  return { data, count: data.length };
}

/** Most ids one PUT may carry: far above any real catalog, well below PostgreSQL's bind-parameter limit. */
const MAX_LABEL_IDS = 1000;

/** The `ids` of a PUT labels body: an array of whole numbers (duplicates are harmless and dropped). */
function parseLabelIds(ids: unknown): number[] {
  if (!Array.isArray(ids)) throw badInput("ids is required and must be an array of label ids");
  if (ids.length > MAX_LABEL_IDS) throw badInput(`ids may hold at most ${MAX_LABEL_IDS} label ids`);
  const bad = ids.filter((id) => !isInt32(id));
  if (bad.length)
    throw badInput(`ids must be whole numbers up to 2147483647; got ${bad.map((id) => JSON.stringify(id)).join(", ")}`);
  return [...new Set(ids as number[])];
}

/** The Prisma delegate methods a link table needs (AssetLabelLink, WorkOrderLabelLink). */
interface LinkDelegate {
  deleteMany(args: any): Promise<unknown>;
  createMany(args: any): Promise<unknown>;
}

/** How labels are applied to one kind of record. */
export interface LabelLinks {
  kind: LabelKind;
  /** The link table's column holding the labelled record's id. */
  owner: string;
  table: (tx: Tx) => LinkDelegate;
}

export const ASSET_LABEL_LINKS: LabelLinks = { kind: "asset", owner: "assetId", table: (tx) => tx.assetLabelLink };

/**
 * Full replacement of the labels on one record, in one transaction: every id must be a live label of
 * `links.kind` in `buyerCompanyId`'s catalog (else 400 listing the offending ids, nothing written);
 * links outside the set are removed, missing ones added. Returns the labels now active, by id.
 * The caller has already checked that the key may write the record and that it belongs to the company.
 */
export async function replaceLabels(
  db: Db,
  links: LabelLinks,
  ownerId: number,
  buyerCompanyId: number,
  rawIds: unknown,
) {
  const ids = parseLabelIds(rawIds);
  return inTransaction(db, async (tx) => {
    // Serialises concurrent replacements of the same record; otherwise two PUTs could leave the union.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`labels:${links.kind}:${ownerId}`}))`;
    const labels = await tx.label.findMany({
      where: { id: { in: ids }, kind: links.kind, buyerCompanyId, deletedAt: null },
      orderBy: { id: "asc" },
    });
    const known = new Set(labels.map((l) => l.id));
    const offending = ids.filter((id) => !known.has(id));
    if (offending.length) throw badInput(`not live ${links.kind} labels of this company: ${offending.join(", ")}`);
    const table = links.table(tx);
    await table.deleteMany({ where: { [links.owner]: ownerId, labelId: { notIn: ids } } });
    await table.createMany({ data: ids.map((labelId) => ({ [links.owner]: ownerId, labelId })), skipDuplicates: true });
    return { data: labels, count: labels.length };
  });
}
