// What other features and the transports may use of mail.
export { queueMail, type MailMessage } from "./rules.ts";
export { startMailJobs } from "./jobs.ts";
