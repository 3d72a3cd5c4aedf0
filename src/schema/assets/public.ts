// What other features may use of assets.
export { subtreeIds } from "./rules.ts";
