// multipart/form-data for routes that declare `upload` (busboy): the single file part reaches the field
// as a stream while the request is still arriving, so a file is never held in memory. The stream the
// field reads ends only once the whole request has been parsed and found well-formed; anything wrong
// fails it with a 400 instead (the field's storage write then removes what it wrote):
//   - a body over the route's limit (refused up front when Content-Length already says so),
//   - a second file part, a file part under another name, no file part, a malformed body,
//   - a client that goes away before the body is complete.
import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import busboy from "busboy";
import { ApiError, badInput } from "../schema/core/errors.ts";
import type { IncomingFile, Upload } from "../schema/core/files.ts";

/** Room for the multipart envelope (boundaries, part headers, small fields) around the file itself. */
const ENVELOPE_BYTES = 1024 * 1024;

export interface ReceivedUpload {
  upload: Upload;
  /**
   * Called once the response is ready: stops reading a body that is not complete (the field failed or
   * did not read it). True when the request was not read to its end, so the connection must close.
   */
  finish(): boolean;
}

/** "512 MB (536870912 bytes)" for whole megabytes, else "N bytes". */
function describeBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return Number.isInteger(mb) ? `${mb} MB (${bytes} bytes)` : `${bytes} bytes`;
}

export function receiveMultipart(req: IncomingMessage, spec: { field: string; maxBytes: number }): ReceivedUpload {
  const tooLarge = () =>
    badInput(`the file is larger than ${describeBytes(spec.maxBytes)}, the limit of this endpoint`);
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > spec.maxBytes + ENVELOPE_BYTES) throw tooLarge();

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      // Clients send file names as raw UTF-8 (what browsers and curl do), not latin1.
      defParamCharset: "utf8",
      // One byte over the limit is what tells "too large" from "exactly the limit" (busboy flags both).
      limits: { fileSize: spec.maxBytes + 1, fields: 20, fieldSize: 64 * 1024, parts: 30, headerPairs: 20 },
    });
  } catch {
    throw badInput(`the body must be multipart/form-data with the file in a part named "${spec.field}"`);
  }

  let part: PassThrough | undefined;
  let failure: ApiError | undefined;
  let parsed = false;
  let settle: { resolve: (f: IncomingFile) => void; reject: (e: ApiError) => void };
  const file = new Promise<IncomingFile>((resolve, reject) => (settle = { resolve, reject }));
  file.catch(() => undefined); // a field that failed before asking for the file must not leave it unhandled

  const fail = (error: ApiError) => {
    if (failure) return;
    failure = error;
    settle.reject(error);
    part?.destroy(error);
    req.unpipe(parser);
    parser.destroy();
  };

  parser.on("file", (name, stream, info) => {
    stream.on("error", () => undefined); // busboy fails its part stream when we stop parsing; the failure is ours already
    if (part || name !== spec.field) {
      stream.resume();
      return fail(
        badInput(
          part
            ? `only one file part is accepted; send the file once, in the part named "${spec.field}"`
            : `unexpected file part "${name}"; send the file in the part named "${spec.field}"`,
        ),
      );
    }
    part = new PassThrough();
    part.on("error", () => undefined); // reported to whoever reads the stream; never an uncaught error
    // After busboy's own bookkeeping of the limit (stopping the parser inside its 'limit' event breaks it).
    stream.on("limit", () => process.nextTick(() => fail(tooLarge())));
    stream.pipe(part, { end: false });
    settle.resolve({ name: info.filename ?? "", contentType: info.mimeType, stream: part });
  });
  parser.on("field", (name) => {
    if (name === spec.field)
      fail(badInput(`part "${spec.field}" must be a file (a filename in its Content-Disposition)`));
  });
  for (const limit of ["partsLimit", "filesLimit", "fieldsLimit"] as const) {
    parser.on(limit, () => fail(badInput("the multipart body has too many parts")));
  }
  parser.on("error", (error: Error) => fail(badInput(`malformed multipart body: ${error.message}`)));
  parser.on("close", () => {
    if (failure) return;
    if (!part) return fail(badInput(`the multipart body has no file part named "${spec.field}"`));
    parsed = true;
    part.end(); // the whole request is in and well-formed: the field may now finish its write
  });
  req.on("close", () => {
    if (!req.complete) fail(badInput("the upload was interrupted before the body was complete"));
  });
  req.pipe(parser);

  return {
    upload: { file: () => file },
    finish() {
      if (parsed) return false;
      fail(badInput("the upload was not read"));
      if (!req.complete) return true;
      req.resume(); // the rest is already here: drop it and keep the connection
      return false;
    },
  };
}
