// What other features and the transports may use of mail.
export { queueMail, senderNamed, type MailMessage } from "./rules.ts";
export { startMailJobs, type MailMetrics } from "./jobs.ts";
