// What other parts may use of planned maintenance: the cadence checks (operator fixtures) and the
// generator's jobs (worker role).
export { CadenceError, parseCadence, timeZoneProblem } from "./rules/cadence.ts";
export { startPmJobs } from "./jobs.ts";
