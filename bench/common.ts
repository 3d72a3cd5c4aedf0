// What every benchmark script shares: last-in first-out cleanup (on success, failure, interrupt or
// watchdog) and the revision label printed with the figures.
import { execFileSync } from "node:child_process";

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
