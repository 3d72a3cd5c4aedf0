import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Node resolves `graphql` (no exports map) to its CommonJS build for the libraries; Vite would pick
    // the .mjs build for our sources. One instance only, or schemas fail graphql's instanceof checks.
    alias: { graphql: require.resolve("graphql") },
  },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // Test files share their worker process's modules: loading the service's modules took 2.5-4 s per
    // file (docs/architecture.md, "Why these choices"). A test changes only what it owns (its database,
    // Redis prefix and server), never module state or process.env.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
