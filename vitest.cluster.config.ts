// `npm run test:cluster`: the cluster test (test/faults/cluster.cluster.ts; docs/deployment.md), apart
// from `npm test` and the fault suite. It starts PostgreSQL, Redis and the service's processes itself.
import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: { alias: { graphql: require.resolve("graphql") } }, // as in vitest.config.ts
  test: {
    include: ["test/faults/**/*.cluster.ts"],
    pool: "forks",
    poolOptions: { forks: { maxForks: 1, minForks: 1 } },
    testTimeout: 900_000,
    hookTimeout: 300_000,
  },
});
