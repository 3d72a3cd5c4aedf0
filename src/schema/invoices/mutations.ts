import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires } from "../core/permissions.ts";
import { InvoiceActionInput, InvoiceInput, InvoiceRef } from "./types.ts";
import { saveInvoice } from "./rules/save.ts";
import { INVOICE_PDF_MAX_BYTES, runInvoiceAction, uploadAndPublish } from "./rules/status.ts";
import { INVOICE_STATES, type BuyerAction } from "./rules/state-machine.ts";

const INTERNAL_TEAMS = { "403": "Internal service team keys may not use invoices" };

builder.mutationField("saveInvoice", (t) =>
  t.prismaField({
    ...restRoute(
      {
        interfaces: ["supplier"],
        method: "POST",
        path: "/invoice/invoices",
        type: "Invoice",
        bodyArg: "input",
        errors: {
          ...INTERNAL_TEAMS,
          "406": "Save-level validation failure (totals, tax lines, invoice number, not a draft)",
        },
      },
      requires("billing.write"),
    ),
    description:
      "Creates a draft invoice (invisible to the buyer), or with `id` updates the facility's own draft. Totals and tax lines are checked exactly (406 naming them).",
    type: InvoiceRef,
    args: {
      input: t.arg({
        type: InvoiceInput,
        required: true,
        description: "The invoice to create as a draft, or to update when it carries an id",
      }),
    },
    resolve: (query, _root, { input }, ctx) => saveInvoice(ctx, input as never, query),
  }),
);

builder.mutationField("uploadAndPublishInvoice", (t) =>
  t.prismaField({
    ...restRoute(
      {
        interfaces: ["supplier"],
        method: "POST",
        path: "/invoice/file/upload_and_publish/:invoiceId",
        type: "Invoice",
        upload: { field: "file", maxBytes: INVOICE_PDF_MAX_BYTES },
        errors: INTERNAL_TEAMS,
      },
      requires("billing.write", { noun: "invoice", id: (args) => args.invoiceId }),
    ),
    description:
      "multipart/form-data, part `file`: a PDF (checked by its content) of at most 512 MB becomes the invoice's single PDF and the invoice becomes pending. " +
      "400 when the facility does not own the invoice, the work order is not in display status Completed, or the buyer disallows supplier invoice editing. REST only.",
    type: InvoiceRef,
    args: {
      invoiceId: t.arg.int({
        required: true,
        description: "Id of the invoice to publish (a draft or disputed invoice of the key's facility)",
      }),
    },
    resolve: (query, _root, { invoiceId }, ctx) => uploadAndPublish(ctx, invoiceId, query),
  }),
);

/** A buyer's step of the invoice lifecycle (PATCH /invoice/invoices/<action>); `note` ends the description. */
function invoiceActionField(field: string, action: BuyerAction, note = "") {
  const row = INVOICE_STATES.rows.find((r) => r.action === action && r.actor === "buyer")!;
  builder.mutationField(field, (t) =>
    t.prismaField({
      ...restRoute(
        {
          interfaces: ["buyer"],
          method: "PATCH",
          path: `/invoice/invoices/${action}`,
          type: "Invoice",
          bodyArg: "input",
        },
        requires("billing.approve", { noun: "invoice", id: (args) => args.input.id }),
      ),
      description: `${action}: from ${row.from.join(", ")} to ${row.to.join(", ")}${note}. Returns the invoice.`,
      type: InvoiceRef,
      args: {
        input: t.arg({ type: InvoiceActionInput, required: true, description: "The invoice and the step's notes" }),
      },
      resolve: (query, _root, { input }, ctx) => runInvoiceAction(ctx, action, input, query),
    }),
  );
}

invoiceActionField("invoiceApprove", "approve");
invoiceActionField("invoiceProcess", "process");
invoiceActionField("invoiceMarkPaid", "mark_paid", " (moves the work order to PaymentMade)");
invoiceActionField("invoiceDispute", "dispute");
