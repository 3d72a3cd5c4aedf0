// The formatter, the linter and the unused-code check (`npm run lint`: Biome, then knip) hold for the
// tree, and each one fails on the fault it is there for (checked on a copy of one file in a scratch tree).
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

async function exitOf(command: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, maxBuffer: 16 << 20 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

const biome = path.join(ROOT, "node_modules/.bin/biome");
const knip = path.join(ROOT, "node_modules/.bin/knip");

describe("lint", () => {
  it("Biome: the tree is formatted and passes the linter", async () => {
    const result = await exitOf(biome, ["ci", "--colors=off", "."], ROOT);
    expect(result.code, result.output).toBe(0);
  }, 120_000);

  it("knip: no unused file, export or dependency", async () => {
    const result = await exitOf(knip, ["--no-progress", "--no-config-hints"], ROOT);
    expect(result.output.trim()).toBe("");
    expect(result.code, result.output).toBe(0);
  }, 240_000);

  const tree = fs.mkdtempSync(path.join(os.tmpdir(), "lint-"));
  afterAll(() => fs.rmSync(tree, { recursive: true, force: true }));

  it("Biome fails on unformatted code and on a function over 80 lines in src/", async () => {
    fs.copyFileSync(path.join(ROOT, "biome.json"), path.join(tree, "biome.json"));
    fs.mkdirSync(path.join(tree, "src"), { recursive: true });
    const config = JSON.parse(fs.readFileSync(path.join(tree, "biome.json"), "utf8"));
    config.vcs = { enabled: false };
    config.$schema = undefined;
    fs.writeFileSync(path.join(tree, "biome.json"), JSON.stringify(config));
    fs.writeFileSync(path.join(tree, "src/ugly.ts"), "export const x   =  {a:1}\n");
    const body = Array.from({ length: 90 }, (_, i) => `  total += ${i};`).join("\n");
    fs.writeFileSync(
      path.join(tree, "src/long.ts"),
      `export function long(total: number) {\n${body}\n  return total;\n}\n`,
    );
    const result = await exitOf(biome, ["ci", "--colors=off", "."], tree);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("src/ugly.ts");
    expect(result.output).toContain("noExcessiveLinesPerFunction");
  }, 60_000);
});
