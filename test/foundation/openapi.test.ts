// The OpenAPI documents are what code generators need: valid under swagger-parser, request bodies as
// bodies, scalars as their real types, list filters and sort fields as query parameters, every contract
// status with the error body and an example, operations grouped with summaries.
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
const docs: Record<string, any> = {};
beforeAll(async () => {
  t = await startTestApp();
  for (const iface of ["buyer", "supplier", "partners"])
    docs[iface] = (await t.call(null, "GET", `/v1/${iface}/openapi.json`)).body;
});
afterAll(() => t?.close());

const operations = (doc: any) =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op })),
  );

describe("OpenAPI documents", () => {
  it("are valid OpenAPI 3.0 for every interface", async () => {
    for (const iface of Object.keys(docs)) {
      await expect(SwaggerParser.validate(structuredClone(docs[iface])), iface).resolves.toBeTruthy();
    }
  });

  it("take request bodies as JSON bodies, never as a query parameter `input`", () => {
    for (const { path, method, op } of operations(docs.buyer)) {
      expect(
        op.parameters.some((p: { name: string }) => p.name === "input"),
        `${method} ${path}`,
      ).toBe(false);
      if (method !== "get")
        expect(op.requestBody?.content?.["application/json"]?.schema, `${method} ${path}`).toBeTruthy();
    }
  });

  it("type timestamps, dates and id lists as strings of their format", () => {
    const schemas = docs.buyer.components.schemas;
    expect(schemas.MeterReadingInput.properties.recordedAt).toMatchObject({ type: "string", format: "date-time" });
    expect(schemas.AssetInput.properties.installDate).toMatchObject({ type: "string", format: "date" });
    const multiple = docs.buyer.paths["/v1/buyer/location/locations/multiple/{ids}"].get;
    expect(multiple.parameters[0]).toMatchObject({
      name: "ids",
      in: "path",
      style: "simple",
      explode: false,
      schema: { type: "array", items: { type: "integer" } },
    });
    expect(JSON.stringify(docs.buyer)).not.toContain('"type":"object"}},"recordedAt"');
  });

  it("document list filters and sort fields as query parameters", () => {
    const list = docs.buyer.paths["/v1/buyer/asset/assets"].get;
    const names = list.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "offset",
        "limit",
        "sort_by",
        "order",
        "locationId",
        "assetTypeId",
        "isActive",
        "serialNumber",
      ]),
    );
    expect(list.parameters.find((p: { name: string }) => p.name === "sort_by").schema.enum).toEqual([
      "id",
      "name",
      "createdAt",
    ]);
    const workOrders = docs.buyer.paths["/v1/buyer/work_order/work_orders"].get.parameters.map(
      (p: { name: string }) => p.name,
    );
    expect(workOrders).toEqual(
      expect.arrayContaining(["search", "status", "statusChangedAtStart", "assetIds", "plannedMaintenanceScheduleId"]),
    );
    const countBy = docs.buyer.paths["/v1/buyer/location/locations/count_by"].get.parameters.find(
      (p: { name: string }) => p.name === "group_by",
    );
    expect(countBy.schema.enum).toContain("regionId");
  });

  it("give every operation a tag, a summary, the contract's statuses with the error body and an example, and the rate-limit headers", () => {
    for (const iface of Object.keys(docs)) {
      for (const { path, method, op } of operations(docs[iface])) {
        const where = `${iface} ${method} ${path}`;
        expect(op.tags?.length, where).toBe(1);
        expect(op.summary, where).toBeTruthy();
        for (const status of ["400", "401", "404"]) {
          expect(op.responses[status]?.content["application/json"].schema.$ref, where).toBe(
            "#/components/schemas/ErrorBody",
          );
          expect(op.responses[status].content["application/json"].example.status, where).toBe("error");
        }
        if (path.endsWith("/ping") || path.endsWith("/skip_schedule")) {
          // the contract's rate-limit exemptions
          expect(op.responses["429"], where).toBeUndefined();
          expect(op.responses["200"].headers["RateLimit-Limit"], where).toBeUndefined();
        } else {
          expect(op.responses["429"].headers["Retry-After"], where).toBeTruthy();
          expect(op.responses["200"].headers["RateLimit-Remaining"], where).toBeTruthy();
        }
      }
    }
    expect(docs.buyer.paths["/v1/buyer/user/provision"].post.responses["403"]).toBeTruthy();
    expect(docs.buyer.paths["/v1/buyer/work_order/work_orders/cancel"].patch.responses["409"]).toBeTruthy();
  });
});
