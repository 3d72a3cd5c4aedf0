// What a typed client generated from the OpenAPI documents gets: nothing `unknown` but the fields that
// are free-form by contract (they say "Free-form"), enums for closed sets, integer ids, binary downloads.
// Checked on the document (test/support/openapi-lint.ts), and by generating the client with
// openapi-typescript 7 (which needs TypeScript 5) and typechecking a small program against it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
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
  it("generate a client (openapi-typescript) that a small program typechecks against", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "openapi-client-"));
    try {
      for (const iface of Object.keys(docs)) {
        const source = astToString(await openapiTS(structuredClone(docs[iface]), { silent: true }));
        // Free-form fields become `[key: string]: unknown` (a response's other headers `[name: string]: unknown`).
        const unknowns = source.split("\n").filter((l) => /\bunknown\b/.test(l) && !/^\s*(\*|\/\*\*)/.test(l));
        expect(
          unknowns.every((l) => /^\s*\[(key|name): string\]: unknown;$/.test(l)),
          unknowns.join("\n"),
        ).toBe(true);
        fs.writeFileSync(path.join(dir, `${iface}.ts`), source);
      }
      fs.writeFileSync(path.join(dir, "program.ts"), PROGRAM);
      const program = ts.createProgram([path.join(dir, "program.ts")], {
        strict: true,
        noEmit: true,
        allowImportingTsExtensions: true,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        skipLibCheck: true,
      });
      const diagnostics = ts.getPreEmitDiagnostics(program);
      expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** What an integrator writes against the generated types: integer ids, enums, a nullable first status. */
const PROGRAM = `import type { paths as Buyer, components as B } from "./buyer.ts";
import type { paths as Supplier } from "./supplier.ts";
type WorkOrders = Buyer["/v1/buyer/work_order/work_orders"]["get"];
export const query: NonNullable<WorkOrders["parameters"]["query"]> = { locationId: 131, status: ["Unassigned", "TechAssigned"], sort_by: "woPriority" };
export const multiple: Buyer["/v1/buyer/location/locations/multiple/{ids}"]["get"]["parameters"]["path"] = { ids: [131, 132] };
type Change = B["schemas"]["WorkOrderStatusChange"];
export const first: Change["from"] = null;
export const kind: Change["actorKind"] = "system";
// @ts-expect-error not a status
export const bad: Change["to"] = "Done";
export type Download = Supplier["/v1/supplier/file/files/{id}"]["get"]["responses"][200]["content"]["*/*"];
`;
