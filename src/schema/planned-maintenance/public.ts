// What other parts may use of planned maintenance: the cadence checks (operator fixtures) and the
// generator's jobs (worker role) and its queue's name (the metrics read its depth).
export { CadenceError, parseCadence, timeZoneProblem } from "./rules/cadence.ts";
export { PM_QUEUE, startPmJobs } from "./jobs.ts";
