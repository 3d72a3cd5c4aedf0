import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { FileRef } from "./types.ts";
import { readFile } from "./rules.ts";

builder.queryField("file", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer", "supplier"],
      method: "GET",
      path: "/file/files/:id",
      type: "File",
      download: true,
    }),
    description:
      "A stored file. REST answers with its bytes (as an attachment); GraphQL with its details. Suppliers read their facility's uploads, " +
      "buyers the files attached to their proposals and the PDFs of their published invoices. 404 unknown, 400 not readable by the key.",
    type: FileRef,
    args: { id: t.arg.int({ required: true, description: "The file's id" }) },
    resolve: (_root, { id }, ctx) => readFile(ctx, id),
  }),
);
