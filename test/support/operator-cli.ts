// Runs the real operator CLI (src/operator/cli.ts) as a child process, as an operator would.
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
export function operatorCli(
  databaseUrl: string | undefined,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...options.env,
  };
  if (!databaseUrl) delete env.DATABASE_URL;
  if (!options.env || !("WEBHOOK_ALLOW_INSECURE_URLS" in options.env)) delete env.WEBHOOK_ALLOW_INSECURE_URLS;
  return new Promise((resolve) => {
    // A bundle compiled once per run (operator-cli-build.ts), not tsx: ~0.65 s a run (--help; keys list ~1.0 s) against ~1.3 s (~1.7 s) on 2 cores.
    execFile(
      process.execPath,
      ["--enable-source-maps", inject("operatorCliBundle"), ...args],
      { cwd: options.cwd ?? ROOT, env, timeout: 180_000, maxBuffer: 10 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}
