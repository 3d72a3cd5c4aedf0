// What other features may use of labels: the label type, and the replace-labels route for their records.
export { LabelRef } from "./types.ts";
export { labelsField } from "./mutations.ts";
