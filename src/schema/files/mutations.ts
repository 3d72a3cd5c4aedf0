import { builder } from "../core/builder.ts";
import { restRoute } from "../core/interfaces.ts";
import { requires } from "../core/permissions.ts";
import { FileRef } from "./types.ts";
import { FILE_MAX_BYTES, uploadFile } from "./rules.ts";

builder.mutationField("uploadFile", (t) =>
  t.field({
    ...restRoute(
      {
        interfaces: ["supplier"],
        method: "POST",
        path: "/file/upload",
        type: "File",
        upload: { field: "file", maxBytes: FILE_MAX_BYTES },
      },
      requires("billing.write"),
    ),
    description:
      "Uploads one file (multipart/form-data, part `file`, at most 100 MB); returns its details, usable as proposal attachments. REST only.",
    type: FileRef,
    resolve: (_root, _args, ctx) => uploadFile(ctx),
  }),
);
