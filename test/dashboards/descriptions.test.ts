// The dashboard graph documents itself: every type, field, argument and enum value of the GraphQL schema
// carries a description, and every field and argument name is camelCase except the names the REST
// contract fixes (root fields with a REST route, their arguments such as sort_by, and the fields of types
// the REST cuts serve). The schema is built in-process: no server needed.
import { describe, expect, it } from "vitest";
import {
  GraphQLEnumType,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  type GraphQLField,
  type GraphQLInputField,
} from "graphql";
import { buildSchemas } from "../../src/schema/index.ts";

const CAMEL_CASE = /^[a-z][a-zA-Z0-9]*$/;

interface Member {
  /** Where it is, e.g. `WorkOrder.status`, `Query.workOrder(id)`, `WorkOrderStatus.Unassigned`. */
  path: string;
  description: string | null | undefined;
  /** A field or argument name the camelCase rule applies to; null for types and enum values. */
  name: string | null;
  /** Root field with a REST route, its argument, or a field of a type a REST cut serves. */
  restFixed: boolean;
}

/** Names of the fields each type has in any REST cut: the REST contract fixes those names. */
function restFieldNames(rest: Record<string, GraphQLSchema>): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>();
  for (const schema of Object.values(rest)) {
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) && !isInputObjectType(type) && !isInterfaceType(type)) continue;
      const fields = names.get(type.name) ?? new Set<string>();
      for (const field of Object.keys(type.getFields())) fields.add(field);
      names.set(type.name, fields);
    }
  }
  return names;
}

/** Every type, field, argument and enum value of the schema, skipping introspection and built-in scalars. */
function membersOf(schema: GraphQLSchema, rest: Record<string, GraphQLSchema> = {}): Member[] {
  const restFields = restFieldNames(rest);
  const members: Member[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    members.push({ path: `type ${type.name}`, description: type.description, name: null, restFixed: false });
    if (isEnumType(type)) {
      for (const value of type.getValues())
        members.push({
          path: `${type.name}.${value.name}`,
          description: value.description,
          name: null,
          restFixed: false,
        });
    }
    if (!isObjectType(type) && !isInterfaceType(type) && !isInputObjectType(type)) continue;
    for (const field of Object.values(type.getFields()) as (GraphQLField<unknown, unknown> | GraphQLInputField)[]) {
      const routed = field.extensions?.rest !== undefined;
      const restFixed = routed || (restFields.get(type.name)?.has(field.name) ?? false);
      members.push({ path: `${type.name}.${field.name}`, description: field.description, name: field.name, restFixed });
      for (const arg of "args" in field ? field.args : [])
        members.push({
          path: `${type.name}.${field.name}(${arg.name})`,
          description: arg.description,
          name: arg.name,
          restFixed: routed,
        });
    }
  }
  return members;
}

const undescribed = (members: Member[]) => members.filter((m) => !m.description?.trim()).map((m) => m.path);
const notCamelCase = (members: Member[]) =>
  members.filter((m) => m.name !== null && !m.restFixed && !CAMEL_CASE.test(m.name)).map((m) => m.path);

describe("the GraphQL schema's documentation", () => {
  const { graphql, rest } = buildSchemas();
  const members = membersOf(graphql, rest);

  it("describes every type, field, argument and enum value", () => {
    expect(members.length).toBeGreaterThan(1500);
    expect(undescribed(members), "members without a description").toEqual([]);
  });

  it("names every field and argument in camelCase, except the names the REST contract fixes", () => {
    expect(members.filter((m) => m.restFixed).length).toBeGreaterThan(100);
    expect(notCamelCase(members), "names not in camelCase").toEqual([]);
  });
});

describe("the checks themselves", () => {
  const status = new GraphQLEnumType({ name: "Shade", values: { dark: { description: "Night" }, light: {} } });
  const routed = new GraphQLObjectType({
    name: "Query",
    description: "Reads",
    fields: {
      rows: {
        type: GraphQLString,
        description: "Rows",
        extensions: { rest: { path: "/rows" } },
        args: { sort_by: { type: GraphQLString, description: "Sort key" } },
      },
      shade: { type: status, args: { group_by: { type: GraphQLString } } },
      snake_case: { type: GraphQLString, description: "Neither REST nor camelCase" },
    },
  });
  const members = membersOf(new GraphQLSchema({ query: routed }));

  it("find a missing description on a type, a field, an argument and an enum value", () => {
    expect(undescribed(members)).toEqual(["Query.shade", "Query.shade(group_by)", "type Shade", "Shade.light"]);
  });

  it("find a snake_case name unless a REST route or a REST cut fixes it", () => {
    expect(notCamelCase(members)).toEqual(["Query.shade(group_by)", "Query.snake_case"]);
    const cut = new GraphQLSchema({
      query: new GraphQLObjectType({ name: "Query", fields: { snake_case: { type: GraphQLString } } }),
    });
    expect(notCamelCase(membersOf(new GraphQLSchema({ query: routed }), { buyer: cut }))).toEqual([
      "Query.shade(group_by)",
    ]);
  });
});
