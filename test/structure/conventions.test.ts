// Conventions every feature follows: each mutation declares its permission; transactions go through inTransaction.
import { describe, expect, it } from "vitest";
import { GraphQLObjectType, GraphQLSchema, GraphQLString } from "graphql";
import { buildSchemas } from "../../src/schema/index.ts";
import { applyPermissions, type PermissionRule } from "../../src/schema/core/permissions.ts";

describe("permission declarations", () => {
  it("are on every mutation of the GraphQL schema and of each REST cut", () => {
    const { graphql, rest } = buildSchemas();
    const undeclared: string[] = [];
    let walked = 0;
    for (const [name, schema] of [["graphql", graphql], ...Object.entries(rest)] as const) {
      for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
        walked++;
        const rule = field.extensions?.permission as PermissionRule | undefined;
        if (!rule?.permission) undeclared.push(`${name}: Mutation.${field.name}`);
      }
    }
    expect(walked).toBeGreaterThan(20);
    expect(undeclared).toEqual([]);
  });

  it("are required: a schema with an undeclared mutation is refused", () => {
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({ name: "Query", fields: { ping: { type: GraphQLString } } }),
      mutation: new GraphQLObjectType({
        name: "Mutation",
        fields: { forgotten: { type: GraphQLString, resolve: () => "x" } },
      }),
    });
    expect(() => applyPermissions(schema)).toThrow(/Mutation\.forgotten declares no permission/);
  });
});

describe("transactions", () => {
  it("are opened only through core/transaction.ts inTransaction (so a request's transaction can be joined)", async () => {
    const { execFileSync } = await import("node:child_process");
    const hits = execFileSync("grep", ["-rln", "--include=*.ts", "\\$transaction(", "src"], { encoding: "utf8" })
      .split("\n")
      .filter((file) => file && !file.startsWith("src/generated/"));
    expect(hits.sort()).toEqual(["src/schema/core/transaction.ts"]);
  });
});
