// The real shapes of the fields the schema types `JSON` (values the service checks itself, to give the
// contract's own 400 wording), for the OpenAPI documents: a client generator would type them `unknown`.
// Fields free-form by contract say "Free-form" in their description (docs/api.md lists them); the
// document test (test/foundation/openapi-client.test.ts) refuses any other untyped schema.
type Schema = Record<string, unknown>;

const money = { type: "string", pattern: "^-?\\d+(\\.\\d+)?$", description: "Decimal amount", example: "125.00" };
const lineItems = {
  type: "array",
  maxItems: 200,
  items: {
    type: "object",
    required: ["description", "amount"],
    properties: { description: { type: "string", maxLength: 1000 }, amount: money },
  },
};
const ids = { type: "array", items: { type: "integer", format: "int32" }, description: "Whole-number ids" };
// Emails are trimmed and lower-cased by the service before it checks them.
const emails = { type: "array", items: { type: "string", description: "An email address" } };
const freeObject = (description: string) => ({
  type: "object",
  additionalProperties: true,
  description: `Free-form by contract: ${description}`,
});
const attachments = {
  type: "array",
  items: {
    type: "object",
    required: ["name", "url"],
    properties: { name: { type: "string" }, url: { type: "string" }, contentType: { type: "string" } },
    additionalProperties: true,
  },
};
const note = {
  type: "object",
  required: ["noteAddedBy"],
  properties: {
    text: { type: "string" },
    noteAddedBy: { type: "string", description: "Email of a contact of the work order's companies" },
    photo: { type: "string", nullable: true },
    video: { type: "string", nullable: true },
    audio: { type: "string", nullable: true },
    otherFile: { type: "string", nullable: true },
    elements: { type: "array", items: freeObject("structured note elements (a user element per mention)") },
  },
};

/** By `Type.field`; `*LineItems` of proposals and invoices share one shape. */
const FIELDS: Record<string, Schema> = {
  "Location.locationTypeDetails": freeObject("custom field values of the location's type, by field name"),
  "LocationPatchInput.locationTypeDetails": freeObject("custom field values of the location's type, by field name"),
  warranties: {
    type: "array",
    items: freeObject("a warranty, e.g. {provider, description, startsAt, endsAt}"),
  },
  "PlannedMaintenanceSchedule.workOrderTemplate": freeObject(
    "the work order fields each due time gets (title, description, locationId, …)",
  ),
  "AssetInput.fullChargeLb": {
    anyOf: [
      { type: "number", nullable: true },
      { type: "string", enum: [""] },
    ],
    description: "Override, a positive number; omitted keeps, null or blank inherits the type's",
  },
  "AssetInput.refrigerantRequiresProcessShutdown": {
    anyOf: [
      { type: "boolean", nullable: true },
      { type: "string", enum: [""] },
    ],
    description: "Override; omitted keeps, null or blank clears",
  },
  "AssetModel.manuals": attachments,
  "AssetModel.specs": attachments,
  "WorkOrderNote.elements": note.properties.elements,
  "WorkOrderAppendNoteInput.note": note,
  "WorkOrderAppendNoteInput.taggedUsers": { ...emails, maxItems: 25 },
  // Bulk notes: each exactly one photo; the author defaults as for a single note.
  "WorkOrderAppendPhotoNotesInput.notes": { type: "array", items: { ...note, required: undefined }, maxItems: 25 },
  "LabelIdsInput.ids": ids,
  "PurchaseRequestLineItemIdsInput.ids": ids,
  "SupplierSupplierRelationshipInput.workOrdersRoutedTo": emails,
  "SupplierSupplierRelationshipInput.supplierAccountEmails": emails,
  LineItems: lineItems,
  taxLineItems: {
    type: "array",
    items: {
      type: "object",
      required: ["type", "amount"],
      properties: {
        type: { type: "string", description: "GST, HST or PST (CAD invoices only)" },
        amount: money,
        rate: { type: "string", description: "Percent, e.g. 13" },
      },
    },
  },
  attachments: {
    type: "array",
    description: "File details as POST /file/upload answers them, or bare file ids",
    items: {
      oneOf: [
        { type: "integer", format: "int32" },
        { type: "object", required: ["id"], properties: { id: { type: "integer" } }, additionalProperties: true },
      ],
    },
  },
};

/** The schema of a `JSON` field, or undefined when it has no known shape. */
export function jsonFieldSchema(typeName: string, field: string): Schema | undefined {
  return (
    FIELDS[`${typeName}.${field}`] ??
    FIELDS[field] ??
    (field.endsWith("LineItems") && /^(Proposal|Invoice)/.test(typeName) ? FIELDS.LineItems : undefined)
  );
}

/** A count_by group's `value`: the group_by field's value (null for records without one). */
export const COUNT_VALUE: Schema = {
  oneOf: [{ type: "string" }, { type: "number" }, { type: "boolean" }],
  nullable: true,
  description: "The group_by field's value",
};
