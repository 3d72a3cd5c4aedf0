// Import rules (docs/architecture.md, "Imports point one way"): transport → features → core.
//   core:      src/schema/core/, src/db.ts, src/redis.ts, src/logger.ts, src/generated/
//   features:  src/schema/<feature>/ (every folder but core)
//   assembly:  src/schema/index.ts (imports every feature's root fields)
//   transport: src/http/, src/rest/ (may use http/), src/workers/, src/operator/
//   composition: src/app.ts, src/main.ts, src/config.ts
// Checked by `npm test` (test/structure/imports.test.ts) and `npm run lint:imports`.
const FEATURE = "^src/schema/(?!core/)[^/]+/";
const TRANSPORT = "^src/(http|rest|workers|operator)/";
const COMPOSITION = "^src/(app|main|config)\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A cycle means two modules cannot be read (or tested) apart.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "core-imports-core-only",
      severity: "error",
      comment: "The shared core knows no feature and no transport.",
      from: { path: "^src/(schema/core/|db\\.ts$|redis\\.ts$|logger\\.ts$)" },
      to: { path: [FEATURE, TRANSPORT, COMPOSITION, "^src/schema/index\\.ts$"] },
    },
    {
      name: "feature-imports-no-transport",
      severity: "error",
      comment: "Features are served by transports, never the other way round.",
      from: { path: FEATURE },
      to: { path: [TRANSPORT, COMPOSITION, "^src/schema/index\\.ts$"] },
    },
    {
      name: "feature-imports-features-through-public",
      severity: "error",
      comment: "Another feature is used only through its public.ts.",
      from: { path: "^src/schema/((?!core/)[^/]+)/" },
      to: { path: FEATURE, pathNot: ["^src/schema/$1/", "^src/schema/[^/]+/public\\.ts$"] },
    },
    {
      name: "transport-imports-features-through-public",
      severity: "error",
      comment:
        "Transports use a feature only through its public.ts (the schema reaches them through src/schema/index.ts).",
      from: { path: TRANSPORT },
      to: { path: FEATURE, pathNot: "^src/schema/[^/]+/public\\.ts$" },
    },
    {
      name: "http-imports-no-rest",
      severity: "error",
      comment:
        "rest/ builds on http/ (pipeline, request scope, errors); the composition root hands the REST adapter to the server.",
      from: { path: "^src/http/" },
      to: { path: "^src/rest/" },
    },
    {
      name: "jobs-and-cli-import-no-server",
      severity: "error",
      comment: "The worker role and the operator CLI run without the HTTP server.",
      from: { path: "^src/(workers|operator)/" },
      to: { path: "^src/(http|rest)/" },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      from: { path: "^src/" },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/generated/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      extensions: [".ts", ".js", ".mjs", ".json"],
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
    },
  },
};
