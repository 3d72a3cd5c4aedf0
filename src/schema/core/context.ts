// What every resolver receives. Built by the REST adapter and by yoga's context factory.
import type { Db } from "../../db.ts";
import type { Logger } from "../../logger.ts";
import type { Viewer } from "./viewer.ts";
import type { Interface } from "./interfaces.ts";
import type { Download, FileStorage, Upload } from "./files.ts";

export interface Services {
  /** The primary: writes, and every read of a request that is not read-only. */
  db: Db;
  /**
   * The client a read-only request reads from (REST lists, counts and searches, GraphQL queries): a
   * read replica within the lag bound, else the primary (src/read-replicas.ts). Unset: the primary.
   * Chosen once per request, where its Context is made (rest/adapter.ts, http/graphql.ts).
   */
  readDb?: () => Db;
  logger: Logger;
  now: () => Date;
  /** The portal's base URL, for links in mail (PORTAL_URL). */
  portalUrl?: string;
  /** Where uploaded files are kept (FILE_STORAGE_DIR by default). */
  files: FileStorage;
  /** This API's base URL as integrators reach it (PUBLIC_URL), for links to stored files. */
  publicUrl: string;
  /**
   * The search bitmaps: whether buyer searches may be answered from them (SEARCH_BITMAPS; the GIN path
   * otherwise), and from how many indexed work orders of a company its lists and counts without a search
   * text use them (SEARCH_BITMAP_MIN_COMPANY). Unset: on, for every company.
   */
  search?: { bitmaps: boolean; bitmapMinCompany: number };
}

export interface Context extends Services {
  viewer: Viewer;
  traceId: string;
  /** Where the request came in: one of the REST interfaces, or GraphQL. */
  channel: Interface | "graphql";
  /**
   * A list's rows may be answered by the statement that reads them (statement-answers.ts), and
   * `answered` is told each time, `asText` when their text went into the answer unparsed (the request's
   * log line says so). Unset (subscriptions, jobs, and the test that compares the two paths:
   * Config.resolvedRows): rows are resolved field by field.
   */
  statementAnswers?: { answered(asText?: boolean): void };
  /** REST routes that declare `upload`: the request's file part (the body is not read as JSON). */
  upload?: Upload;
  /** REST routes that declare `download`: answer with these bytes instead of the JSON envelope. */
  download?: (file: Download) => void;
}
