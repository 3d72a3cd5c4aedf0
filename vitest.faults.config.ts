// `npm run test:faults`: the fault-injection suite (test/faults), apart from the fast `npm test`. One
// file at a time, long timeouts: it starts redis-server, the API and the worker as child processes.
import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: { alias: { graphql: require.resolve("graphql") } }, // as in vitest.config.ts
  test: {
    include: ["test/faults/**/*.fault.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    pool: "forks",
    poolOptions: { forks: { maxForks: 1, minForks: 1 } },
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
