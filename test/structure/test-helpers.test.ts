// Test helpers shared across folders live in test/support/: a test folder imports another folder's
// files only from there (a folder's own helpers.ts is for that folder). Polling has one helper,
// `waitFor` of test/support/wait.ts; no other file defines its own. Both checks are also run on a
// made-up file, so they are known to fail.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const TEST = path.resolve(import.meta.dirname, "..");

/** `from "../<folder>/…"` where the folder is another test folder than support/ (not `../../src`). */
const FROM_OTHER_FOLDER = /from "\.\.\/(?!support\/)([\w-]+)\/[^"]*"/g;
/** A polling helper defined outside test/support/wait.ts. */
const POLLER = /\b(?:function\s+|const\s+)(waitFor|waitUntil|eventually|pollUntil)\b/g;

function problemsIn(file: string, text: string): string[] {
  const problems = [...text.matchAll(FROM_OTHER_FOLDER)].map(
    ([from]) => `${file}: ${from} (share it from test/support/)`,
  );
  if (file !== "support/wait.ts")
    for (const [, name] of text.matchAll(POLLER))
      problems.push(`${file}: defines ${name} (use support/wait.ts waitFor)`);
  return problems;
}

const files = (fs.readdirSync(TEST, { recursive: true }) as string[]).filter(
  (f) => f.endsWith(".ts") && f !== "structure/test-helpers.test.ts", // its made-up file below
);

describe("test helpers", () => {
  it("shared across folders come from test/support/, and only support/wait.ts polls", () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files.flatMap((f) => problemsIn(f, fs.readFileSync(path.join(TEST, f), "utf8")))).toEqual([]);
  });

  it("the check fails on a file that imports another folder's helpers or polls on its own", () => {
    const text = [
      'import { startReceiver } from "../events/helpers.ts";',
      'import { startTestApp } from "../support/app.ts";',
      'import { buildSchemas } from "../../src/schema/index.ts";',
      'import { valueFor } from "./fuzz.ts";',
      "async function waitUntil(probe: () => boolean) {}",
      "const eventually = async () => {};",
    ].join("\n");
    expect(problemsIn("networks/made-up.test.ts", text)).toEqual([
      'networks/made-up.test.ts: from "../events/helpers.ts" (share it from test/support/)',
      "networks/made-up.test.ts: defines waitUntil (use support/wait.ts waitFor)",
      "networks/made-up.test.ts: defines eventually (use support/wait.ts waitFor)",
    ]);
  });
});
