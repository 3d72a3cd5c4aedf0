// What a GraphQL operation costs, and the key's budget it is spent from (docs/api.md, "GraphQL cost and
// budget"). The cost is the most objects the answer can hold: each field that returns an object counts
// 1, a list counts its page size per object under it, and so nested lists multiply; scalar fields are
// free, and an operation costs at least 1. The page size is the `limit` or `first` argument on the list
// or on the field that holds it (`locations(limit: 25) { data { … } }`), literal or variable, up to the
// largest page a list serves (list.ts); a list without one counts DEFAULT_LIST_SIZE. graphql-armor's
// cost limit (http/graphql.ts) stays as a bound on the document checked before execution; this cost
// needs the variables, so it is computed and spent when the operation is about to run.
//
// @pothos/plugin-complexity (field complexity with argument multipliers) would replace operationCost if
// it were a dependency; it was not installed when this was written.
import {
  getNamedType,
  getNullableType,
  isListType,
  isLeafType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
  getOperationAST,
  isObjectType,
  isInterfaceType,
} from "graphql";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../schema/core/list.ts";

/** Items counted for a list that takes no page size (a relation's rows, an enum list of objects …). */
const DEFAULT_LIST_SIZE = 10;
/** The arguments that size a page. */
const PAGE_ARGUMENTS = new Set(["limit", "first", "last"]);

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  /** Whether a page size came from a variable (then the cost is the request's, not the document's). */
  readVariable?: boolean;
}

/** The page size a field asks for (literal, variable or the argument's default), capped; undefined without one. */
function pageSize(
  field: GraphQLField<unknown, unknown>,
  nodeArguments: readonly { name: { value: string }; value: ValueNode }[] | undefined,
  walk: Walk,
): number | undefined {
  const argument = field.args.find((a) => PAGE_ARGUMENTS.has(a.name));
  if (!argument) return undefined;
  const given = nodeArguments?.find((a) => a.name.value === argument.name)?.value;
  let value: unknown = argument.defaultValue ?? DEFAULT_LIMIT;
  if (given?.kind === Kind.INT) value = Number(given.value);
  else if (given?.kind === Kind.VARIABLE) {
    walk.readVariable = true;
    value = walk.variables[given.name.value] ?? value;
  }
  return typeof value === "number" && Number.isFinite(value) ? Math.max(1, Math.min(value, MAX_LIMIT)) : DEFAULT_LIMIT;
}

/**
 * The cost of a selection set on `type`: `page` is a page size asked for by a field above that is
 * not itself a list (it sizes the first list below it).
 */
function selectionCost(selectionSet: SelectionSetNode, type: GraphQLCompositeType, walk: Walk, page?: number): number {
  let total = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = walk.fragments.get(selection.name.value);
      const on = fragment && walk.schema.getType(fragment.typeCondition.name.value);
      if (fragment && on) total += selectionCost(fragment.selectionSet, on as GraphQLCompositeType, walk, page);
      continue;
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const on = selection.typeCondition ? walk.schema.getType(selection.typeCondition.name.value) : type;
      total += selectionCost(selection.selectionSet, (on ?? type) as GraphQLCompositeType, walk, page);
      continue;
    }
    const fields = isObjectType(type) || isInterfaceType(type) ? type.getFields() : {};
    const field = fields[selection.name.value];
    // __typename is free; __schema and __type (introspection) count one object each.
    if (!field) {
      total += selection.name.value.startsWith("__") && selection.name.value !== "__typename" ? 1 : 0;
      continue;
    }
    const named = getNamedType(field.type);
    if (isLeafType(named) || !selection.selectionSet) continue;
    const size = pageSize(field, selection.arguments, walk) ?? page;
    const list = isListType(getNullableType(field.type));
    const items = list ? (size ?? DEFAULT_LIST_SIZE) : 1;
    const inner = selectionCost(selection.selectionSet, named as GraphQLCompositeType, walk, list ? undefined : size);
    total += items * (1 + inner);
  }
  return total;
}

/** Costs that depend on the document alone (no page size from a variable), by document, then schema and operation name. */
const documentCosts = new WeakMap<DocumentNode, Map<GraphQLSchema, Map<string, number>>>();

/** The cost of the operation a request runs (operationName picks it), at least 1. */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
): number {
  const known = documentCosts
    .get(document)
    ?.get(schema)
    ?.get(operationName ?? "");
  if (known !== undefined) return known;
  const operation = getOperationAST(document, operationName) as OperationDefinitionNode | null;
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return 1;
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  const walk: Walk = { schema, fragments, variables: variables ?? {} };
  const cost = Math.max(1, selectionCost(operation.selectionSet, root, walk));
  if (!walk.readVariable) {
    let bySchema = documentCosts.get(document);
    if (!bySchema) documentCosts.set(document, (bySchema = new Map()));
    let costs = bySchema.get(schema);
    if (!costs) bySchema.set(schema, (costs = new Map()));
    costs.set(operationName ?? "", cost);
  }
  return cost;
}
