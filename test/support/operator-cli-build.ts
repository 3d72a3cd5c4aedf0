// Compiles the operator CLI (src/operator/cli.ts and the sources it imports) into one ES module, once
// per test run (global-setup.ts), for test/support/operator-cli.ts to run with `node`. Compiled as tsx
// compiles it (esbuild; the tsconfig, this Node's target, names kept, source maps) with the packages
// left as imports, so Node loads them from the repository's node_modules as it does for tsx or
// dist/operator/cli.js. Each source's import.meta.url (dirname, filename) stays its own file's, so
// whatever the sources locate relative to themselves is found where it is under tsx.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const keepImportMeta: esbuild.Plugin = {
  name: "keep-import-meta",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async ({ path: file }) => {
      const own: Record<string, string> = {
        url: pathToFileURL(file).href,
        dirname: path.dirname(file),
        filename: file,
      };
      const source = await fs.promises.readFile(file, "utf8");
      return {
        contents: source.replace(/\bimport\.meta\.(url|dirname|filename)\b/g, (_, key: string) =>
          JSON.stringify(own[key]),
        ),
        loader: "ts",
      };
    });
  },
};

/** Builds the CLI; returns the bundle's path, a function that builds it again (watch mode) and one that removes it. */
export async function buildOperatorCli(): Promise<{ file: string; rebuild(): Promise<void>; remove(): void }> {
  // Inside the repository (node_modules/.cache, ignored by git) so that the bundle's imports of packages
  // resolve to the repository's node_modules; a directory of its own per run. An interrupted run leaves
  // its directory behind (no teardown): those older than a day go.
  const cache = path.join(ROOT, "node_modules/.cache");
  fs.mkdirSync(cache, { recursive: true });
  for (const old of fs.readdirSync(cache).filter((name) => name.startsWith("operator-cli-"))) {
    const at = path.join(cache, old);
    const made = fs.statSync(at, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
    if (Date.now() - made > 86_400_000) fs.rmSync(at, { recursive: true, force: true });
  }
  const dir = fs.mkdtempSync(path.join(cache, "operator-cli-"));
  const file = path.join(dir, "cli.mjs");
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  const rebuild = async () => {
    await esbuild.build({
      entryPoints: [path.join(ROOT, "src/operator/cli.ts")],
      outfile: file,
      bundle: true,
      packages: "external",
      platform: "node",
      format: "esm",
      target: `node${process.versions.node}`,
      keepNames: true,
      sourcemap: true,
      sourcesContent: false,
      tsconfig: path.join(ROOT, "tsconfig.json"),
      plugins: [keepImportMeta],
      logLevel: "error",
    });
  };
  try {
    await rebuild();
  } catch (error) {
    remove();
    throw error;
  }
  return { file, rebuild, remove };
}
