// `npm run bench -- stock`: what the on-hand row lock costs. Concurrent workers record parts used on a
// work order (POST /v1/partners/inventory/work_order_parts), either all on one part at one stock
// location ("hot": every change waits for the same row) or each on its own part ("spread": the
// baseline, the same requests without contention), interleaved for BENCH_ROUNDS rounds of
// BENCH_DURATION seconds with BENCH_CONNECTIONS workers. Prints req/s, p50 and p99 per mode (median over
// rounds) and hot ÷ spread, then checks that every part's on-hand equals its count minus what the
// accepted requests took (no lost update under load). Own database (wo_bench_purchasing, dropped at the
// end) and Redis prefix. Exit code 1 when on-hand disagrees or a request failed, 2 on failure.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import pino from "pino";
import { startApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { createDb } from "../src/db.ts";
import { applyFixture } from "../src/operator/apply.ts";
import { abort, cleanUp, gitRevision, onCleanUp } from "./common.ts";
import { onServer, recreateDatabase } from "./database.ts";

const DATABASE = "wo_bench_purchasing";
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const durationMs = Number(process.env.BENCH_DURATION ?? 5) * 1000;
const workers = Number(process.env.BENCH_CONNECTIONS ?? 10);
const START = 1_000_000;

async function main() {
  setTimeout(() => abort("still running after 300 s"), 300_000).unref();
  const databaseUrl = await recreateDatabase(DATABASE);
  onCleanUp(() => onServer(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`));
  const db = createDb(databaseUrl, { max: 10 });
  onCleanUp(() => db.$disconnect());
  const fixture = JSON.parse(fs.readFileSync(new URL("../test/fixtures/base.json", import.meta.url), "utf8"));
  for (const key of fixture.apiKeys) key.rateLimit = { requests: 10_000_000, windowSeconds: 20 };
  const applied = await applyFixture(db, fixture, { allowInsecureWebhooks: true });
  const redisPrefix = `wobench:${crypto.randomBytes(4).toString("hex")}`;
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: "0",
    ROLES: "api",
    REDIS_PREFIX: redisPrefix,
    NODE_ENV: "production",
  });
  const app = await startApp(config, { db, logger: pino({ level: "warn" }) });
  onCleanUp(() => app.close());
  const base = `http://127.0.0.1:${app.port}`;

  const key = applied.keys["inhouse-partner-key"];
  const headers = { "X-API-KEY": key.apiKey, "SVC-KEY": key.svcKey!, "content-type": "application/json" };
  const post = async (path: string, body: unknown, auth = headers) => {
    const response = await fetch(`${base}${path}`, { method: "POST", headers: auth, body: JSON.stringify(body) });
    const json = (await response.json()) as any;
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const buyer = applied.keys["acme-key"];
  const refs = applied.refs;
  const wo = await post(
    "/v1/buyer/work_order/work_orders",
    {
      title: "Bench",
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      buyerFacilityId: refs["acme-hq"],
      buyerCompanyId: refs.acme,
      createdBy: "alice@acme.example",
      supplierFacilityId: refs["inhouse-west"],
    },
    { "X-API-KEY": buyer.apiKey, "SVC-KEY": buyer.svcKey!, "content-type": "application/json" },
  );
  const parts: number[] = [];
  for (let i = 0; i < workers; i++)
    parts.push((await post("/v1/partners/inventory/parts", { number: `B-${i}`, name: `Bench ${i}` })).id);
  const location = await post("/v1/partners/inventory/stock_locations", {
    name: "Bench",
    onHand: parts.map((partId) => ({ partId, quantity: String(START) })),
  });

  const taken = new Map(parts.map((p) => [p, 0]));
  let failures = 0;
  async function run(mode: "hot" | "spread") {
    const latencies: number[] = [];
    const until = Date.now() + durationMs;
    await Promise.all(
      parts.map(async (own) => {
        const partId = mode === "hot" ? parts[0] : own;
        while (Date.now() < until) {
          const t0 = performance.now();
          const response = await fetch(`${base}/v1/partners/inventory/work_order_parts`, {
            method: "POST",
            headers,
            body: JSON.stringify({ workOrderId: wo.id, partId, stockLocationId: location.id, quantity: "1" }),
          });
          await response.arrayBuffer();
          latencies.push(performance.now() - t0);
          if (response.status === 200) taken.set(partId, taken.get(partId)! + 1);
          else failures++;
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
    return { requestsPerSecond: latencies.length / (durationMs / 1000), p50: at(0.5), p99: at(0.99) };
  }

  const samples: Record<"hot" | "spread", { requestsPerSecond: number; p50: number; p99: number }[]> = {
    hot: [],
    spread: [],
  };
  await run("spread"); // warm-up, counted in the on-hand check only
  for (let round = 1; round <= rounds; round++) {
    for (const mode of ["spread", "hot"] as const) {
      const s = await run(mode);
      samples[mode].push(s);
      console.log(
        `round ${round} ${mode.padEnd(6)} ${s.requestsPerSecond.toFixed(0).padStart(5)} req/s  p50 ${s.p50.toFixed(1)} ms  p99 ${s.p99.toFixed(1)} ms`,
      );
    }
  }

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const summary = Object.fromEntries(
    (["spread", "hot"] as const).map((m) => [
      m,
      {
        requestsPerSecond: median(samples[m].map((s) => s.requestsPerSecond)),
        p50: median(samples[m].map((s) => s.p50)),
        p99: median(samples[m].map((s) => s.p99)),
      },
    ]),
  );
  const levels = await db.stockLevel.findMany({ where: { stockLocationId: location.id } });
  const wrong = levels.filter((l) => l.onHand.toNumber() !== START - taken.get(l.partId)!);
  console.log(
    `\n=== stock bench: commit ${gitRevision()}, node ${process.version}, ${os.cpus().length} CPUs, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(`${workers} workers, ${rounds} rounds × ${durationMs / 1000} s per mode, loopback`);
  for (const [mode, s] of Object.entries(summary))
    console.log(
      `${mode.padEnd(6)} ${s.requestsPerSecond.toFixed(0).padStart(5)} req/s  p50 ${s.p50.toFixed(1)} ms  p99 ${s.p99.toFixed(1)} ms`,
    );
  console.log(
    `hot ÷ spread: req/s ${(summary.hot.requestsPerSecond / summary.spread.requestsPerSecond).toFixed(2)}, p99 ${(summary.hot.p99 / summary.spread.p99).toFixed(2)}`,
  );
  console.log(
    `on-hand = count − accepted for every part: ${wrong.length === 0 ? "yes" : `NO (${wrong.length} parts)`}; failed requests: ${failures}`,
  );
  if (wrong.length || failures) process.exitCode = 1;
}

main()
  .catch((error) => {
    console.error("bench failed:", error);
    process.exitCode = 2;
  })
  .finally(() => cleanUp());
