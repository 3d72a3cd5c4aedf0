// What other features may use of labels: the label type, who reads which labels, and the replace-labels route for their records.
export { LabelRef } from "./types.ts";
export { labelScope } from "./rules.ts";
export { labelsField } from "./mutations.ts";
