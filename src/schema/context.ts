// What every resolver receives. Built by the REST adapter and by yoga's context factory.
import type { Db } from "../db.ts";
import type { Logger } from "../logger.ts";
import type { Viewer } from "./identity/viewer.ts";
import type { Interface } from "./common/interfaces.ts";
import type { MailSender } from "../workers/queues.ts";

export interface Services {
  db: Db;
  logger: Logger;
  now: () => Date;
  // Provisioning (src/schema/provisioning): the mail queue producer and the portal's base URL for links
  // in invite mails. Optional so code that builds Services without them keeps compiling.
  mail?: MailSender;
  portalUrl?: string;
}

export interface Context extends Services {
  viewer: Viewer;
  traceId: string;
  /** Where the request came in: one of the REST interfaces, or GraphQL. */
  channel: Interface | "graphql";
}
