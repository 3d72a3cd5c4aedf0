// Files as the core sees them: where bytes are kept (FileStorage; the local-disk default is in
// src/schema/files/local-disk.ts, an S3-compatible store implements the same three calls), an upload
// as a route receives it (Upload, handed over by the REST adapter for routes that declare `upload`),
// and a download a route answers with (Download, for routes that declare `download`).
import type { Readable } from "node:stream";

export interface FileStorage {
  /**
   * Streams `source` into a new object and resolves once it is durably stored. On any error (the
   * source failing included) nothing is left behind and the promise rejects with that error.
   */
  put(source: Readable | AsyncIterable<Buffer>): Promise<{ key: string; size: number }>;
  /** The stored bytes (rejects when the object does not exist). */
  open(key: string): Promise<Readable>;
  /** Removes an object; removing one that is gone is not an error. */
  remove(key: string): Promise<void>;
}

export interface IncomingFile {
  /** The file name the client sent (base name only); empty when it sent none. */
  name: string;
  /** The content type the client claimed for the part (unverified). */
  contentType: string;
  /**
   * The bytes. The stream ends only once the whole request has been read and found well-formed; it
   * errors with the contract's 400 when the request turns out bad (too large, a second file part,
   * malformed, interrupted).
   */
  stream: Readable;
}

export interface Upload {
  /** The single file part; rejects with a 400 when the request has none or is malformed. */
  file(): Promise<IncomingFile>;
}

export interface Download {
  name: string;
  contentType: string;
  size: number;
  stream: Readable;
}
