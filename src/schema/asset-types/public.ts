// What other features may use of asset types.
export { assetTypeScope } from "./rules.ts";
