// Migrates a template database once per run; every test file clones it (CREATE DATABASE … TEMPLATE),
// which takes milliseconds and gives each file a database of its own. The template's name is unique
// per run, so two runs on one server do not collide; it is dropped when the run ends.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import type { TestProject } from "vitest/node";
import { adminQuery, urlFor } from "./databases.ts";

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

export default async function setup(project: TestProject) {
  const template = `wo_test_template_${crypto.randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${template}`);
  execFileSync("npx", ["--no-install", "prisma", "migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: urlFor(template) },
    stdio: "pipe",
  });
  project.provide("templateDatabase", template);
  return () => adminQuery(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
}
