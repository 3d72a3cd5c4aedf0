// The documents explain themselves: every operation has a specific summary and a description (from
// the GraphQL field's description, so REST and GraphQL say the same), every list documents its filters
// and sort values, and every operation shows a request and an answer example recorded from the REST
// tests (src/rest/openapi-examples.json, `bash scripts/openapi-examples.sh`) that its schemas accept.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { OpenApiChecker } from "../support/openapi-check.ts";

let t: TestApp;
const docs: Record<string, any> = {};
beforeAll(async () => {
  t = await startTestApp();
  for (const iface of ["buyer", "supplier", "partners"])
    docs[iface] = (await t.call(null, "GET", `/v1/${iface}/openapi.json`)).body;
});
afterAll(() => t?.close());

const operations = () =>
  Object.entries(docs).flatMap(([iface, doc]) =>
    Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ iface, where: `${method.toUpperCase()} ${path}`, op })),
    ),
  );

describe("OpenAPI documents explain every operation", () => {
  it("with a specific summary and a description", () => {
    const generic = operations().filter(
      ({ op }) => !op.description || /^(GET|POST|PUT|PATCH|DELETE) \w+$/.test(op.summary) || op.summary.length < 12,
    );
    expect(generic.map((o) => `${o.where}: ${o.op.summary}`)).toEqual([]);
  });

  it("with every list's filters and sort values", () => {
    const undocumented = operations().filter(({ op }) => {
      const sortBy = op.parameters?.find((p: any) => p.name === "sort_by");
      if (!sortBy) return false;
      const ignored = sortBy.description?.startsWith("Ignored");
      return !ignored && !(sortBy.schema.enum || /: \w+/.test(sortBy.description ?? ""));
    });
    expect(undocumented.map((o) => o.where)).toEqual([]);
    const names = (path: string) =>
      docs.buyer.paths[path].get.parameters.map((p: { name: string }) => p.name) as string[];
    expect(names("/v1/buyer/pm/planned_maintenance_schedules")).toEqual(
      expect.arrayContaining(["locationId", "assetId", "nextRunAtStart", "isActive"]),
    );
    expect(names("/v1/buyer/site_survey/walkthroughs")).toEqual(
      expect.arrayContaining(["surveyId", "completedAtStart"]),
    );
    const partners = (path: string) =>
      docs.partners.paths[path].get.parameters.filter((p: any) => p.description?.startsWith("Filter on")).length;
    expect(partners("/v1/partners/purchasing/purchase_orders/{id}/line_items")).toBeGreaterThan(0);
    expect(partners("/v1/partners/purchasing/purchase_orders/{id}/receipts")).toBeGreaterThan(0);
    expect(partners("/v1/partners/purchasing/purchase_requests/{id}/line_items")).toBeGreaterThan(0);
  });

  it("with request and answer examples that the schemas accept", () => {
    const missing: string[] = [];
    for (const { where, op } of operations()) {
      const ok = op.responses["200"].content["application/json"];
      if (ok && ok.example === undefined) missing.push(`${where} answer`);
      const request = op.requestBody?.content?.["application/json"];
      if (request && request.example === undefined) missing.push(`${where} request`);
    }
    // Every operation is answered with a 200 by some REST test; a new operation needs such a test,
    // then a rerun of scripts/openapi-examples.sh.
    expect(missing).toEqual([]);
    expect(new OpenApiChecker(docs).exampleViolations()).toEqual([]);
  });
});
