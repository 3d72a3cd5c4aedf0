// Every root field name is written literally in src/ (as "name"), so a grep for a field found in a
// query, a log line or a REST route's operation finds where it is defined; a name built from a template
// string (`invoice${action}`) cannot be found that way.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GraphQLObjectType, GraphQLSchema, GraphQLString } from "graphql";
import { buildSchemas } from "../../src/schema/index.ts";

const SRC = path.resolve(import.meta.dirname, "../../src");

function sourcesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return file === path.join(SRC, "generated") ? [] : sourcesUnder(file);
    return entry.name.endsWith(".ts") ? [fs.readFileSync(file, "utf8")] : [];
  });
}

/** The root fields (query, mutation, subscription) of the schemas whose names no source writes as "name". */
function unwrittenRootFields(schemas: GraphQLSchema[], sources: string[]): string[] {
  const names = new Set(
    schemas.flatMap((schema) =>
      [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].flatMap((root) =>
        Object.keys(root?.getFields() ?? {}),
      ),
    ),
  );
  return [...names].filter((name) => !sources.some((source) => source.includes(`"${name}"`))).sort();
}

describe("root field names", () => {
  it("are each written literally in src/", () => {
    const { graphql, rest } = buildSchemas();
    const schemas = [graphql, ...Object.values(rest)];
    expect(Object.keys(graphql.getMutationType()?.getFields() ?? {}).length).toBeGreaterThan(20);
    expect(unwrittenRootFields(schemas, sourcesUnder(SRC))).toEqual([]);
  });

  it("are reported when built from a template string", () => {
    const action = "MarkPaid";
    const source = 'builder.mutationField(`invoice${action}`, (t) => t.field({ type: "Invoice" }));';
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({ name: "Query", fields: { ping: { type: GraphQLString } } }),
      mutation: new GraphQLObjectType({
        name: "Mutation",
        fields: { [`invoice${action}`]: { type: GraphQLString } },
      }),
    });
    expect(unwrittenRootFields([schema], [source, 'builder.queryField("ping", …)'])).toEqual(["invoiceMarkPaid"]);
  });
});
