import { builder } from "../core/builder.ts";
import { restRoute, type Interface } from "../core/interfaces.ts";
import { listArgs, listQuery, pageQuery } from "../core/list.ts";
import { findInScope } from "../core/tenancy.ts";
import { listConnection } from "../core/keyset.ts";
import { defineFilter, match } from "../core/filters.ts";
import { defineOrder } from "../core/ordering.ts";
import type { LabelKind } from "../../generated/prisma/client.ts";
import { LabelPage, LabelRef } from "./types.ts";
import { catalog, LABEL_LIST, labelPage, labelScope } from "./rules.ts";

interface LabelCatalogFields {
  kind: LabelKind;
  path: string;
  interfaces: readonly Interface[];
  /** Root field names: the list, the single read. */
  fields: { list: string; one: string };
}

/**
 * The list and single read of one label catalog, the same for every kind. `search`, `label` and
 * `no_pagination` are declared arguments, so the REST layer does not take them for field filters.
 */
function labelCatalogFields({ kind, path, interfaces, fields }: LabelCatalogFields) {
  builder.queryField(fields.list, (t) =>
    t.field({
      ...restRoute({ interfaces, method: "GET", path, type: "Label", list: true, query: listQuery(LABEL_LIST) }),
      description: `The ${kind} label catalog: 10 per page by default; no_pagination=true returns every label (sorting and filters still apply).`,
      type: LabelPage,
      args: {
        ...listArgs,
        search: t.arg.string({ description: "Case-insensitive substring of the label name" }),
        label: t.arg.string({ description: "Case-insensitive substring of the label name" }),
        no_pagination: t.arg.boolean({ description: "true: the whole catalog, count = its size" }),
      },
      resolve: (_root, args, ctx, info) => labelPage(ctx.db, kind, ctx.viewer, args, pageQuery(ctx, info)),
    }),
  );
  builder.queryField(fields.one, (t) =>
    t.prismaField({
      ...restRoute({ interfaces, method: "GET", path: `${path}/:id`, type: "Label" }),
      description: `One label of the ${kind} label catalog by id: 404 when it does not exist, 400 when it is outside the key's scope.`,
      type: LabelRef,
      args: { id: t.arg.int({ required: true, description: "The label's id" }) },
      resolve: (query, _root, args, ctx) => findInScope(catalog(ctx.db, kind), args.id, labelScope(ctx.viewer), query),
    }),
  );
}

// Supplier keys read the asset catalog (only internal teams see anything); work order labels are buyer-only.
labelCatalogFields({
  kind: "asset",
  path: "/asset/asset_labels",
  interfaces: ["buyer", "supplier"],
  fields: { list: "assetLabels", one: "assetLabel" },
});
labelCatalogFields({
  kind: "work_order",
  path: "/work_order/work_order_labels",
  interfaces: ["buyer"],
  fields: { list: "workOrderLabels", one: "workOrderLabel" },
});

// Dashboard graph (graphql only): the same lists as cursor connections with typed filters and ordering.
const LabelFilter = defineFilter("LabelFilter", "Label", "Labels of one catalog", {
  ids: match.ids("id", "Label ids"),
  search: match.text(["name"], "Text in the label name (any case)"),
});
const LabelOrder = defineOrder("Label", "Label", { id: "Label id", name: "Name" }, [{ field: "id", direction: "asc" }]);

/** A label catalog as a connection: the live labels of one kind in the key's label scope. */
const labelConnection = (name: string, kind: LabelKind, interfaces: readonly Interface[]) =>
  listConnection(name, {
    type: LabelRef,
    typeName: "Label",
    description: `The ${kind} label catalog.`,
    interfaces,
    table: (ctx) => catalog(ctx.db, kind),
    scope: (ctx) => labelScope(ctx.viewer),
    filter: LabelFilter,
    order: LabelOrder,
  });

labelConnection("assetLabelsConnection", "asset", ["buyer", "supplier"]);
labelConnection("workOrderLabelsConnection", "work_order", ["buyer"]);
