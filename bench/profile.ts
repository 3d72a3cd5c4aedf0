// CPU profiles of the bench process's main thread (where the service runs; autocannon's load runs in a
// worker thread, the database in its own processes), taken with node's inspector while a target is under
// load, and where the service's own CPU time went: self time by the code it was spent in.
import { Session } from "node:inspector/promises";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** Where a function lives, as the breakdown of docs/performance.md names it. */
const CATEGORIES: [RegExp, string][] = [
  [
    /@prisma\/client|@prisma\/adapter-pg|@prisma\/driver-adapter|query_compiler|\/generated\/prisma\//,
    "Prisma (query compiler, client, adapter)",
  ],
  [/node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+)\//, "pg driver"],
  [/node_modules\/graphql\/(language|validation)\//, "GraphQL parse and validate"],
  [/node_modules\/graphql\//, "GraphQL execute"],
  [/node_modules\/(sofa-api|fets|@whatwg-node|urlpattern-polyfill)\//, "SOFA routing and fetch API"],
  [/node_modules\/(graphql-yoga|@graphql-yoga|@envelop|@escape\.tech)\//, "yoga and envelop plugins"],
  [/node_modules\/@pothos\//, "Pothos (resolver wrappers, selections)"],
  [/node_modules\/(ioredis|redis-parser|cluster-key-slot|denque)\//, "Redis client (rate limiter)"],
  [/node_modules\/(pino|sonic-boom|fast-redact|quick-format-unescaped|thread-stream)\//, "logging (pino)"],
  [/node_modules\/prom-client\//, "metrics (prom-client)"],
  [/\/src\/schema\/core\/viewer\.ts|\/src\/http\/pipeline\.ts/, "authentication"],
  [/\/src\/http\/rate-limit\.ts/, "rate limiter"],
  [/\/src\/http\/input\.ts|\/src\/rest\/(adapter|routes)\.ts/, "request pipeline (body, query, routing)"],
  [/\/src\/rest\/sofa\.ts/, "REST envelope and filters"],
  [/\/src\/http\//, "HTTP server (ours)"],
  [/\/src\/schema\//, "resolvers and rules (ours)"],
  [/node_modules\//, "other packages"],
];

function categoryOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) {
    if (functionName === "(garbage collector)") return "garbage collection";
    if (functionName === "(idle)") return "(idle)";
    if (functionName === "(program)") return "V8 and native (program)";
    return "builtins (JSON, strings, …)";
  }
  if (url.startsWith("node:")) return "Node core (http, net, streams, timers)";
  return CATEGORIES.find(([pattern]) => pattern.test(url))?.[1] ?? "other";
}

/** Busy self time per category, in percent of the busy time (idle excluded), largest first. */
export function breakdown(profile: Profile): { category: string; percent: number; ms: number }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const node = byId.get(samples[i]);
    if (!node) continue;
    const category = categoryOf(node);
    totals.set(category, (totals.get(category) ?? 0) + (deltas[i] ?? 0));
  }
  totals.delete("(idle)");
  const busy = [...totals.values()].reduce((a, b) => a + b, 0) || 1;
  return [...totals.entries()]
    .map(([category, micros]) => ({ category, percent: (100 * micros) / busy, ms: micros / 1000 }))
    .sort((a, b) => b.percent - a.percent);
}

/** Runs `work` under the CPU profiler of this thread; returns its result and the profile. */
export async function profiled<T>(work: () => Promise<T>): Promise<{ result: T; profile: Profile }> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  try {
    const result = await work();
    const { profile } = (await session.post("Profiler.stop")) as { profile: Profile };
    return { result, profile };
  } finally {
    session.disconnect();
  }
}
