// The read routes most resources share, registered once: a list (`path`), its count_by
// (`path/count_by`) and a single read (`path/:id`), all scoped the same way. Domains call this instead
// of repeating the three root fields.
import { builder } from "./builder.ts";
import type { Context } from "./context.ts";
import type { Viewer } from "./viewer.ts";
import { restRoute, type Interface, type RestRoute } from "./interfaces.ts";
import type { GraphQLResolveInfo } from "graphql";
import { findPage, listArgs, listQuery, pageQuery, type ListArgs, type ListSpec } from "./list.ts";
import { countBy, countByArgs } from "./count-by.ts";
import { findInScope } from "./tenancy.ts";
import { rowsAnswer } from "./statement-answers.ts";

interface Table {
  findMany(args: any): Promise<any[]>;
  findFirst(args: any): Promise<any>;
  count(args: any): Promise<number>;
  groupBy(args: any): Promise<any[]>;
}

export interface ReadRoutes {
  interfaces: readonly Interface[];
  /** List path; count_by and :id hang below it. */
  path: string;
  /** Envelope type of the list (and of the single read unless itemType is given). */
  type: string;
  itemType?: string;
  /** Root field names: list, count_by (omit for none), single read (omit for none). */
  fields: { list: string; countBy?: string; one?: string };
  page: any;
  item?: any;
  table: (ctx: Context) => Table;
  scope: (viewer: Viewer) => Record<string, unknown>;
  spec: ListSpec;
  /** Extra validation of the filter argument (e.g. enum values). */
  checkFilter?: (filter: unknown) => unknown;
  description?: string;
  /** Error statuses beyond the common ones that all three routes answer (OpenAPI). */
  errors?: RestRoute["errors"];
}

export function readRoutes(r: ReadRoutes): void {
  const filterOf = (filter: unknown) => (r.checkFilter ? r.checkFilter(filter) : filter);
  builder.queryField(r.fields.list, (t) =>
    t.field({
      ...restRoute({
        interfaces: r.interfaces,
        method: "GET",
        path: r.path,
        type: r.type,
        list: true,
        maxLimit: r.spec.maxLimit,
        query: listQuery(r.spec),
        errors: r.errors,
      }),
      description: r.description,
      type: r.page,
      args: listArgs,
      resolve: (_root: unknown, args: ListArgs, ctx: Context, info: GraphQLResolveInfo) =>
        findPage(
          r.table(ctx),
          r.scope(ctx.viewer),
          { ...args, filter: filterOf(args.filter) },
          r.spec,
          pageQuery(ctx, info),
          undefined,
          rowsAnswer(ctx, info, ["data"]),
        ),
    } as any),
  );
  if (r.fields.countBy) {
    builder.queryField(r.fields.countBy, (t) =>
      t.field({
        ...restRoute({
          interfaces: r.interfaces,
          method: "GET",
          path: `${r.path}/count_by`,
          type: "count",
          query: { ...listQuery(r.spec), groupable: Object.keys(r.spec.filters) },
          errors: r.errors,
        }),
        description: `How many ${r.type} records the list would answer for the same filters; with group_by=<filter field>, how many per value of that field (ordered by value).`,
        type: "JSON",
        args: countByArgs,
        resolve: (_root, args, ctx) =>
          countBy(r.table(ctx), r.scope(ctx.viewer), { ...args, filter: filterOf(args.filter) }, r.spec),
      }),
    );
  }
  if (r.fields.one && r.item) {
    builder.queryField(r.fields.one, (t) =>
      t.prismaField({
        ...restRoute({
          interfaces: r.interfaces,
          method: "GET",
          path: `${r.path}/:id`,
          type: r.itemType ?? r.type,
          errors: r.errors,
        }),
        description: `One ${r.itemType ?? r.type} by id: 404 when it does not exist, 400 when it is outside the key's scope.`,
        type: r.item,
        args: { id: t.arg.int({ required: true, description: `Id of the ${r.itemType ?? r.type} to read` }) },
        resolve: (query: object, _root: unknown, args: { id: number }, ctx: Context) =>
          findInScope(r.table(ctx), args.id, r.scope(ctx.viewer), query),
      } as any),
    );
  }
}
