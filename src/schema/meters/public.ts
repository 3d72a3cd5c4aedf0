// What other features may use of meters.
export { MeterRef } from "./types.ts";
