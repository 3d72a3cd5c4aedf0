// What other parts may use of planned maintenance: the cadence checks (operator fixtures) and the
// generator's jobs (worker role), its queue's name and its due schedules (the metrics read both).
export { CadenceError, parseCadence, timeZoneProblem } from "./rules/cadence.ts";
export { PM_QUEUE, startPmJobs } from "./jobs.ts";
export { dueScheduleCount } from "./rules/generator.ts";
