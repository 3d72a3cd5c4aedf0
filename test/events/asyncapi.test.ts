// The AsyncAPI document of the webhook events (valid AsyncAPI 3.0; payload schemas that the relay's
// real messages satisfy).
import fs from "node:fs";
import { createRequire } from "node:module";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messagesFor } from "../../src/schema/work-orders/events.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

const require = createRequire(import.meta.url);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe("GET /asyncapi.json", () => {
  it("is public, linked from /docs, and a valid AsyncAPI 3.0 document", async () => {
    const reply = await t.call(null, "GET", "/asyncapi.json");
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toContain("application/json");
    expect(reply.body.asyncapi).toBe("3.0.0");
    const official = JSON.parse(
      fs.readFileSync(require.resolve("@asyncapi/specs/schemas/3.0.0-without-$id.json"), "utf8"),
    );
    const validate = new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(official);
    expect(validate(reply.body), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    const docs = await t.call(null, "GET", "/docs");
    expect(docs.body).toContain('href="/asyncapi.json"');
  });

  it("has the three events, signed as docs/decisions.md#webhooks, with payloads the relay's messages satisfy", async () => {
    const doc = (await t.call(null, "GET", "/asyncapi.json")).body;
    expect(Object.keys(doc.channels).sort()).toEqual(["workorderCreate", "workorderNewNote", "workorderStatusUpdate"]);
    const byEvent: Record<string, any> = {};
    for (const m of Object.values(doc.components.messages) as any[]) byEvent[m.payload.properties.event_type.const] = m;
    expect(Object.keys(byEvent).sort()).toEqual(["workorder.create", "workorder.new_note", "workorder.status_update"]);
    expect(doc.components.schemas.SignatureHeaders.required).toEqual([
      "X-Signature-256",
      "webhook-id",
      "webhook-timestamp",
      "webhook-signature",
    ]);

    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
    ajv.addFormat("uri", /^https?:\/\//);
    ajv.addSchema({ ...doc, $id: "asyncapi.json" });
    const validator = (event: string) =>
      ajv.getSchema(
        `asyncapi.json#/components/messages/${Object.keys(doc.components.messages).find((k) => doc.components.messages[k] === byEvent[event])}/payload`,
      )!;

    const at = "2026-11-02T15:04:05.000Z";
    const base = {
      workOrderId: 7,
      buyerCompanyId: 1,
      customer: "Acme Foods",
      location: "Store 1",
      supplierFacilityId: 3,
      visibleToSupplierFacilityIds: [],
    };
    const events = [
      {
        eventType: "workorder.create",
        payload: {
          ...base,
          status: "PendingConfirmationByServiceProvider",
          oldStatus: null,
          newStatus: "PendingConfirmationByServiceProvider",
          changedBy: "Alice",
          changedAt: at,
          action: "create",
        },
      },
      {
        eventType: "workorder.status_update",
        payload: {
          ...base,
          status: "ConfirmedByServiceProvider",
          oldStatus: "PendingConfirmationByServiceProvider",
          newStatus: "ConfirmedByServiceProvider",
          changedBy: "Bob",
          changedAt: at,
          action: "confirm",
        },
      },
      {
        eventType: "workorder.new_note",
        payload: {
          ...base,
          status: "TechAssigned",
          newNote: "",
          photos: ["https://cdn.example/a.jpg", "https://cdn.example/b.jpg"],
          addedBy: "Bob",
          addedAt: at,
        },
      },
      {
        eventType: "workorder.new_note",
        payload: {
          ...base,
          status: "TechAssigned",
          newNote: "Video",
          video: "https://cdn.example/v.mp4",
          addedBy: "Bob",
          addedAt: at,
        },
      },
    ];
    let checked = 0;
    for (const [i, e] of events.entries()) {
      for (const m of messagesFor({ id: i, ...e }, { visibilityWebhooks: false })) {
        const validate = validator(m.event_type);
        const body = JSON.parse(JSON.stringify({ event_type: m.event_type, data: m.data }));
        expect(validate(body), `${m.event_type} to ${JSON.stringify(m.to)}: ${JSON.stringify(validate.errors)}`).toBe(
          true,
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(6); // buyer and supplier messages of each kind
    // …and the schemas are strict enough to catch a wrong body.
    expect(validator("workorder.create")({ event_type: "workorder.create", data: { workOrderId: "7" } })).toBe(false);
    expect(
      validator("workorder.new_note")({
        event_type: "workorder.status_update",
        data: { workOrderId: 7, newNote: "x", addedBy: "a", addedAt: at },
      }),
    ).toBe(false);
    expect(
      validator("workorder.status_update")({
        event_type: "workorder.status_update",
        data: { workOrderId: 7, location: "x", newStatus: "Nope", changedBy: "a", changedAt: at },
      }),
    ).toBe(false);
  });
});
