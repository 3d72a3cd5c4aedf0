// Migrates a template database once per run; every test file clones it (CREATE DATABASE … TEMPLATE),
// which takes milliseconds and gives each file a database of its own. The template's name is unique
// per run, so two runs on one server do not collide; it is dropped when the run ends. Also compiles
// the operator CLI once for the run (operator-cli-build.ts), removed when the run ends.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import type { TestProject } from "vitest/node";
import { adminQuery, urlFor } from "./databases.ts";
import { buildOperatorCli } from "./operator-cli-build.ts";

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
    /** The compiled operator CLI that test/support/operator-cli.ts runs. */
    operatorCliBundle: string;
  }
}

export default async function setup(project: TestProject) {
  const cli = await buildOperatorCli();
  project.provide("operatorCliBundle", cli.file);
  project.onTestsRerun(() => cli.rebuild()); // watch mode: the CLI as the sources are now
  const template = `wo_test_template_${crypto.randomBytes(4).toString("hex")}`;
  try {
    await adminQuery(`CREATE DATABASE ${template}`);
    execFileSync("npx", ["--no-install", "prisma", "migrate", "deploy"], {
      env: { ...process.env, DATABASE_URL: urlFor(template) },
      stdio: "pipe",
    });
  } catch (error) {
    cli.remove();
    throw error;
  }
  project.provide("templateDatabase", template);
  return async () => {
    cli.remove();
    await adminQuery(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
  };
}
