// Runs the real operator CLI as a child process, as an operator would: `node <bundle>`, src/operator/cli.ts
// compiled once per run (operator-cli-build.ts), ~0.6 s a run against ~1.5 s for `tsx src/operator/cli.ts`.
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI against `databaseUrl`; never rejects. WEBHOOK_ALLOW_INSECURE_URLS is unset unless `env`
 * sets it. `cwd` (default: the repository) is where the CLI looks for a .env.
 */
export function operatorCli(databaseUrl: string | undefined, args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), ...options.env };
  if (!databaseUrl) delete env.DATABASE_URL;
  if (!options.env || !("WEBHOOK_ALLOW_INSECURE_URLS" in options.env)) delete env.WEBHOOK_ALLOW_INSECURE_URLS;
  return new Promise((resolve) => {
    execFile(process.execPath, ["--enable-source-maps", inject("operatorCliBundle"), ...args], { cwd: options.cwd ?? ROOT, env, timeout: 180_000, maxBuffer: 10 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}
