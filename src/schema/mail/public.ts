// What other features and the transports may use of mail.
export { pendingMail, queueMail, senderNamed, type MailMessage } from "./rules.ts";
export { startMailJobs, type MailMetrics } from "./jobs.ts";
