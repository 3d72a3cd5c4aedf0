// `npm run bench [-- locations|work-orders|webhooks|stock|pm|uploads|live|dashboard …]`: runs the benchmarks one after the
// other, each in its own process (own database, own Redis prefix), and prints each one's summary. Without
// arguments all of them run (several minutes on 2 cores). The exit code is the worst of theirs:
// 1 when a target was missed, 2 when a benchmark failed.
import { spawnSync } from "node:child_process";
import path from "node:path";

const BENCHES: Record<string, string> = {
  locations: "locations.ts", // list endpoints vs a bare node:http + pg handler; SQL statements per request
  "work-orders": "work-orders.ts", // search and count at 1,000,000 work orders vs a lookup by id
  webhooks: "webhooks.ts", // deliveries per second and commit-to-receipt latency vs a bare POST loop
  stock: "stock.ts", // concurrent on-hand changes on one row vs on distinct rows; on-hand checked after
  pm: "pm.ts", // planned maintenance generator: work orders per second vs a bare INSERT loop
  uploads: "uploads.ts", // a 512 MB PDF through upload_and_publish vs a plain file copy; the service's peak RSS growth
  live: "live.ts", // 1,000 graphql-ws subscribers over 10 tenants at 100 events/s: commit → delivery, memory per subscriber
  dashboard: "dashboard.ts", // the 25-row board query vs one hand-written statement; workOrderStats at 1,000,000 work orders
};

const chosen = process.argv.slice(2);
const unknown = chosen.filter((name) => !BENCHES[name]);
if (unknown.length) {
  console.error(`unknown benchmark ${unknown.join(", ")}; choose from ${Object.keys(BENCHES).join(", ")}`);
  process.exit(2);
}

let worst = 0;
for (const name of chosen.length ? chosen : Object.keys(BENCHES)) {
  console.log(`\n=== bench: ${name} ===`);
  const tsx = path.join("node_modules", ".bin", "tsx");
  // As the service runs in production (README): graphql-js, among others, checks more in development.
  const env = { ...process.env, NODE_ENV: process.env.NODE_ENV ?? "production" };
  const { status } = spawnSync(tsx, [path.join("bench", BENCHES[name])], { stdio: "inherit", env });
  worst = Math.max(worst, status ?? 2);
}
process.exitCode = worst;
