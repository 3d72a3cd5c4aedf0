// What a typed client generated from the OpenAPI documents gets: nothing `unknown` but the fields that
// are free-form by contract (they say "Free-form"), enums for closed sets, integer ids, binary downloads.
// Checked on the document (test/support/openapi-lint.ts), as openapi-typescript 7 reads it. (Generating
// the client and typechecking a program against it needs openapi-typescript as a devDependency;
// docs/api.md, "How the documents are checked".)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { nullableEnumRefs, schemasOf, unknownTypes } from "../support/openapi-lint.ts";

let t: TestApp;
const docs: Record<string, any> = {};
beforeAll(async () => {
  t = await startTestApp();
  for (const iface of ["buyer", "supplier", "partners"])
    docs[iface] = (await t.call(null, "GET", `/v1/${iface}/openapi.json`)).body;
});
afterAll(() => t?.close());

const enumOf = (schema: any): unknown[] | undefined =>
  schema?.enum ?? schema?.anyOf?.find((s: any) => s.enum)?.enum ?? schema?.items?.enum;

describe("OpenAPI documents for generated clients", () => {
  it("type every schema, but the free-form-by-contract ones, which say so", () => {
    for (const iface of Object.keys(docs)) {
      expect(unknownTypes(docs[iface]), iface).toEqual([]);
      expect(nullableEnumRefs(docs[iface]), iface).toEqual([]);
    }
  });

  it("give closed sets as enums: outcome, status changes, reading modes, run log statuses, status filters", () => {
    const s = docs.buyer.components.schemas;
    expect(enumOf(s.WorkOrderStatusChange.properties.action)).toEqual(expect.arrayContaining(["create", "check_in"]));
    expect(enumOf(s.WorkOrderStatusChange.properties.actorKind)).toEqual(["buyer", "supplier", "system"]);
    expect(enumOf(s.WorkOrderStatusChange.properties.from)).toContain(null);
    expect(enumOf(s.ServiceCall.properties.outcome)).toEqual(["completed", "incomplete", null]);
    expect(enumOf(s.Meter.properties.readingMode)).toContain("direct_reading");
    expect(enumOf(s.SchedulerRunLog.properties.status)).toEqual(["success", "failed", "skipped"]);
    for (const iface of Object.keys(docs))
      for (const [where, schema] of schemasOf(docs[iface]))
        if (/ parameter status$/.test(where)) expect(enumOf(schema), where).toBeTruthy();
  });

  it("type ids and id filters as integers, downloads as binary", () => {
    for (const iface of Object.keys(docs)) {
      for (const [where, schema] of schemasOf(docs[iface])) {
        // (currency "ids" are ISO codes: USD)
        if (/ parameter (id|\w+Id|ids|\w+Ids)$/.test(where) && !/CurrencyId$/.test(where)) {
          const types = [
            schema.type,
            schema.items?.type,
            ...(schema.anyOf ?? []).map((s: any) => s.items?.type ?? s.type),
          ];
          expect(
            types.filter(Boolean).every((type) => type === "integer" || type === "array"),
            where,
          ).toBe(true);
        }
      }
      const notIntegers = Object.entries(docs[iface].components.schemas as Record<string, any>).flatMap(
        ([name, schema]) =>
          Object.entries((schema.properties ?? {}) as Record<string, any>)
            .filter(
              ([field, p]) =>
                /^(id|\w+Id)$/.test(field) && !/([cC]urrency|trace)Id$/.test(field) && p.type !== "integer",
            )
            .map(([field, p]) => `${name}.${field}: ${p.type}`),
      );
      expect(notIntegers, iface).toEqual([]);
    }
    const download = docs.supplier.paths["/v1/supplier/file/files/{id}"].get.responses["200"].content["*/*"];
    expect(download.schema).toEqual({ type: "string", format: "binary" });
  });
});
