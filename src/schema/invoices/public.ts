// What the worker role wires: the auto-publish loop.
export { startInvoiceJobs } from "./jobs.ts";
