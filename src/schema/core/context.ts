// What every resolver receives. Built by the REST adapter and by yoga's context factory.
import type { Db } from "../../db.ts";
import type { Logger } from "../../logger.ts";
import type { Viewer } from "./viewer.ts";
import type { Interface } from "./interfaces.ts";

export interface Services {
  db: Db;
  logger: Logger;
  now: () => Date;
  /** The portal's base URL, for links in mail (PORTAL_URL). */
  portalUrl?: string;
}

export interface Context extends Services {
  viewer: Viewer;
  traceId: string;
  /** Where the request came in: one of the REST interfaces, or GraphQL. */
  channel: Interface | "graphql";
}
