// File details, as the upload returns them and as proposals carry them in `attachments`.
import { builder } from "../core/builder.ts";
import { scopedNode } from "../core/node.ts";
import { Prisma } from "../../db.ts";
import { answeredValue } from "../core/statement-answers.ts";
import { fileScope, filesUrl, fileUrl } from "./rules.ts";

export const FileRef = builder.prismaNode("StoredFile", {
  ...scopedNode(fileScope),
  name: "File",
  description: "An uploaded file: its details and the URL it is read back at (with the caller's key).",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The file's id" }),
    name: t.exposeString("name", { description: "The file's name as uploaded" }),
    contentType: t.exposeString("contentType", { description: "MIME type of the file (e.g. application/pdf)" }),
    size: t.exposeInt("size", { description: "Bytes" }),
    url: t.string({
      description: "GET it with X-API-KEY and SVC-KEY; the path follows the caller's interface",
      // The same URL for a statement that answers the row (core/statement-answers.ts).
      extensions: answeredValue((file, ctx) => Prisma.sql`${filesUrl(ctx)} || ${Prisma.raw(file)}.id`),
      resolve: (f, _args, ctx) => fileUrl(ctx, f.id),
    }),
    supplierFacilityId: t.exposeInt("supplierFacilityId", { description: "The uploader's facility (the owner)" }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the file was uploaded" }),
  }),
});
