// What every benchmark script shares: last-in first-out cleanup (on success, failure, interrupt or
// watchdog), the revision label printed with the figures, percentiles, and the service run as a child process.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

/** The p-th percentile (nearest rank) of `times` (in any order), to two decimals. */
export function percentiles(times: number[]): (p: number) => number {
  const sorted = [...times].sort((a, b) => a - b);
  return (p) => Number(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)].toFixed(2));
}

/** The repository's root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const cleanups: (() => Promise<unknown>)[] = [];

export function onCleanUp(step: () => Promise<unknown>): void {
  cleanups.push(step);
}

export async function cleanUp(): Promise<void> {
  while (cleanups.length) await cleanups.pop()!().catch((error) => console.error("bench: cleanup step failed:", error));
}

export function abort(reason: string): void {
  console.error(`bench: ${reason}; cleaning up`);
  void cleanUp().finally(() => process.exit(2));
}

/** The commit the figures belong to, marked when the work tree has uncommitted changes. */
export function gitRevision(): string {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain"], { encoding: "utf8" }).trim() !== "";
    return dirty ? `${head} + uncommitted changes` : head;
  } catch {
    return "unknown";
  }
}

/**
 * The service from the sources (src/main.ts) with `env`, once GET /readyz on `port` answers 200.
 * BENCH_PROFILE=<dir>: a V8 CPU profile of the service, written when it stops.
 */
export async function startService(env: NodeJS.ProcessEnv, port: number): Promise<ChildProcess> {
  const profile = process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", path.join(ROOT, "src/main.ts")], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (c) => (stderr += c));
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited ${child.exitCode}: ${stderr}`);
    if (
      await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return child;
    if (Date.now() > until) throw new Error(`service not ready after 60 s: ${stderr}`);
    await sleep(200);
  }
}

/** SIGTERM (a graceful stop), SIGKILL after 15 s. */
export async function stopService(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(15_000).then(() => child.kill("SIGKILL"))]);
}

/** A TCP port free on the loopback interface right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}
