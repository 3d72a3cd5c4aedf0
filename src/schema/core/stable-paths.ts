// Stable response paths for compiled queries (docs/performance.md, "Compiled queries"). plugin-prisma's
// selection mapping finds what a relation's parent row was loaded with by the identity of graphql-js's
// response path objects (a WeakMap per ancestor path); graphql-jit (http/graphql-jit.ts) builds a field's
// path afresh, as object literals, for every call, so a relation under another relation (a label under a
// work order's label links) was not found and loaded again by its fallback statement. In a compiled run,
// each field that reads or records the mapping is given one path object per response path (list indices included),
// the same for the field and for every path that passes through it, as graphql-js's are.
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from "@pothos/core";
import type { GraphQLFieldResolver, GraphQLResolveInfo } from "graphql";

type Path = GraphQLResolveInfo["path"];

/** The contexts of compiled runs (http/graphql-jit.ts marks them), whose paths are interned. */
const compiledRuns = new WeakSet<object>();

/** Marks `context`'s run as compiled by graphql-jit. */
export const runsCompiled = (context: object) => void compiledRuns.add(context);

/** A run's path object for one response path, and those of the paths one key longer. */
interface Stable {
  path: Path | undefined;
  next: Map<string | number, Stable>;
}

/** Per compiled run: the root of its tree of path objects (one key per level: no texts are built). */
const pathsOfRun = new WeakMap<object, Stable>();

/** The run's one node for `path`, made (with its ancestors') the first time it is seen. */
function intern(root: Stable, path: Path | undefined): Stable {
  if (!path) return root;
  const parent = intern(root, path.prev);
  let stable = parent.next.get(path.key);
  if (!stable) {
    stable = { path: { prev: parent.path, key: path.key, typename: path.typename }, next: new Map() };
    parent.next.set(path.key, stable);
  }
  return stable;
}

const pluginName = "stablePaths";

class StablePathsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  /**
   * Whether a field reads or records plugin-prisma's mapping: a relation or a scalar computed from what
   * plugin-prisma selects for it (both marked by plugin-prisma's extension), or a field that returns rows
   * of a Prisma model (a prismaField, which plans its own query). Other fields' paths need no identity:
   * the paths below them are made through the tree whatever called before.
   */
  private readsMapping({ type, extensions }: PothosOutputFieldConfig<Types>): boolean {
    if (extensions?.pothosPrismaSelect) return true;
    const item = type.kind === "List" ? type.type : type;
    if (item.kind === "List" || item.kind === "Scalar" || item.kind === "Enum") return false;
    return Boolean(this.buildCache.getTypeConfig(item.ref).extensions?.pothosPrismaModel);
  }

  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types["Context"], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types["Context"], object> {
    if (!this.readsMapping(fieldConfig)) return resolver;
    return (parent, args, context, info) => {
      if (!compiledRuns.has(context)) return resolver(parent, args, context, info);
      let root = pathsOfRun.get(context);
      if (!root) pathsOfRun.set(context, (root = { path: undefined, next: new Map() }));
      return resolver(parent, args, context, { ...info, path: intern(root, info.path).path! });
    };
  }
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      stablePaths: StablePathsPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin(pluginName, StablePathsPlugin);

export default pluginName;
