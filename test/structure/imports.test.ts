// The import rules of .dependency-cruiser.cjs (docs/architecture.md): the project follows them, and each
// rule catches the wrong import it is written for (checked on a small tree made for the test).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { afterAll, describe, expect, it } from "vitest";
import { cruise, type ICruiseResult } from "dependency-cruiser";

const ROOT = path.resolve(import.meta.dirname, "../..");
const require = createRequire(import.meta.url);
const { forbidden, options } = require(path.join(ROOT, ".dependency-cruiser.cjs"));

async function violations(baseDir: string, withTsConfig: boolean) {
  const cwd = process.cwd();
  process.chdir(baseDir); // rule paths are relative to the cruised tree's root
  try {
    const result = await cruise(["src"], {
      ...options,
      ...(withTsConfig ? {} : { tsConfig: undefined }),
      ruleSet: { forbidden },
      validate: true,
    });
    return (result.output as ICruiseResult).summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
  } finally {
    process.chdir(cwd);
  }
}

describe("import rules", () => {
  it("hold for src/", async () => {
    expect(await violations(ROOT, true)).toEqual([]);
  }, 60_000);

  const tree = fs.mkdtempSync(path.join(os.tmpdir(), "import-rules-"));
  afterAll(() => fs.rmSync(tree, { recursive: true, force: true }));
  const write = (file: string, imports: string[]) => {
    fs.mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
    fs.writeFileSync(
      path.join(tree, file),
      `${imports.map((i) => `import "${i}";`).join("\n")}\nexport const x = 1;\n`,
    );
  };

  it("catch each kind of wrong import", async () => {
    write("src/schema/core/errors.ts", ["../assets/rules.ts"]); // core → feature
    write("src/schema/assets/rules.ts", ["../../http/server.ts", "../meters/rules.ts"]); // feature → transport, → another feature's internals
    write("src/schema/assets/public.ts", ["./rules.ts"]);
    write("src/schema/meters/rules.ts", ["../assets/public.ts", "./types.ts"]); // allowed
    write("src/schema/meters/types.ts", ["./rules.ts"]); // a cycle
    write("src/http/server.ts", ["../rest/adapter.ts", "../schema/meters/rules.ts"]); // http → rest, transport → feature internals
    write("src/rest/adapter.ts", ["../schema/assets/public.ts"]); // allowed
    write("src/workers/index.ts", ["../http/server.ts"]); // worker → server
    const found = await violations(tree, false);
    expect(found).toEqual(
      expect.arrayContaining([
        "core-imports-core-only: src/schema/core/errors.ts → src/schema/assets/rules.ts",
        "feature-imports-no-transport: src/schema/assets/rules.ts → src/http/server.ts",
        "feature-imports-features-through-public: src/schema/assets/rules.ts → src/schema/meters/rules.ts",
        "transport-imports-features-through-public: src/http/server.ts → src/schema/meters/rules.ts",
        "http-imports-no-rest: src/http/server.ts → src/rest/adapter.ts",
        "jobs-and-cli-import-no-server: src/workers/index.ts → src/http/server.ts",
      ]),
    );
    expect(found.some((v) => v.startsWith("no-circular:") && v.includes("src/schema/meters/"))).toBe(true);
    expect(found.filter((v) => v.includes("→ src/schema/assets/public.ts"))).toEqual([]);
  }, 60_000);
});
