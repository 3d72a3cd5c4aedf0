// The guides (docs/*.md) and README.md name only files that exist, and every `<guide>.md#anchor` cited by
// the code, the tests or the guides is a heading of that guide as /docs renders it. What counts as a name:
// - a repository path (`src/…`, `test/…`, `scripts/…`, `bench/…`, `prisma/…`, `examples/…`, `docs/…`,
//   `.ci/…`): the file or folder exists; `*` and `<placeholder>` stand for one path segment and must
//   match at least one;
// - a shorter source path (`core/audit.ts`, `rules/status.ts`, `db.ts`): the end of some file's path
//   (which feature a guide means is left to the reader; a file deleted or renamed everywhere is caught);
// - a Markdown link to a relative target: the target exists (and its anchor, for a guide).
// The checker is also run on a made-up page, so it is known to fail on a name that does not exist.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { guidePage } from "../../src/http/docs.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SKIP = new Set([".git", "node_modules", "dist"]);

/** Every file and folder of the tree, relative to the root, folders with a trailing slash. */
function entries(dir = ""): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(`${rel}/`, ...entries(rel));
    else out.push(rel);
  }
  return out;
}
const TREE = entries();
const FILES = TREE.filter((e) => !e.endsWith("/"));

const TOP = "(?:src|test|scripts|bench|prisma|examples|docs|\\.ci)";
/** A repository path: not part of a longer path, a URL path (`/docs/events`) or a relative `../` one. */
const REPO_PATH = new RegExp(`(?<![\\w./<>*-])${TOP}/[\\w.*<>/-]*`, "g");
/** A shorter source path: a file name with a source extension, maybe under folders (`./` allowed). */
const SOURCE_PATH = /(?<![\w./<>*-])(?:\.\/)?((?:[\w-]+\/)*[\w.-]*[\w-]\.(?:ts|mjs|cjs|sql|sh|prisma))\b/g;
const LINK = /\[[^\]]*\]\(([^)\s]+)\)/g;
const ANCHOR = /(?<![\w./-])(?:docs\/)?([a-z0-9][a-z0-9-]*)\.md#([\w-]+)/g;
/** A guide named in the code: `docs/events.md`, `events.md`, `decisions.md §3` (maybe with a section number). */
const GUIDE = /(?<![\w./-])(?:docs\/)?([a-z0-9][a-z0-9-]*)\.md\b( §\d+)?/g;

const globRegex = (glob: string) =>
  new RegExp(
    `^${glob
      .split(/(\*|<[^>]+>)/)
      .map((part) => (part === "*" || part.startsWith("<") ? "[^/]+" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
      .join("")}$`,
  );

/** Whether a repository path (maybe a glob, maybe a folder) names something in the tree. */
function exists(name: string): boolean {
  if (/[*<]/.test(name)) {
    const pattern = globRegex(name);
    return TREE.some((e) => pattern.test(e) || pattern.test(e.replace(/\/$/, "")));
  }
  return TREE.includes(name) || TREE.includes(`${name.replace(/\/$/, "")}/`);
}

/** Whether `#anchor` is a heading id of the guide docs/<name>.md as /docs renders it. */
function hasAnchor(name: string, anchor: string): boolean {
  return guidePage(name)?.includes(` id="${anchor}"`) ?? false;
}

/** Guides and headings cited: the guide exists (a guide's own `§14` headings are fine in the guides). */
function anchorProblems(text: string, { sectionNumbers = true } = {}): string[] {
  const problems: string[] = [];
  for (const [cited, name, section] of text.matchAll(GUIDE)) {
    if (name !== "README" && !fs.existsSync(path.join(ROOT, "docs", `${name}.md`)))
      problems.push(`${cited}: no such guide`);
    else if (section && !sectionNumbers)
      problems.push(`${cited}: name the heading (${name}.md#…), not a section number`);
  }
  for (const [cited, name, anchor] of text.matchAll(ANCHOR)) {
    if (!hasAnchor(name, anchor)) problems.push(`${cited}: no such heading`);
  }
  return problems;
}

/** The names in one page (its path relative to the root) that do not exist. */
function problemsIn(page: string, text: string): string[] {
  const problems: string[] = [];
  for (const [match] of text.matchAll(REPO_PATH)) {
    if (match.includes("…")) continue; // elided on purpose
    const name = match.replace(/[.,:;)]+$/, "");
    if (!exists(name)) problems.push(`${name}: no such file or folder`);
  }
  for (const [, name] of text.matchAll(SOURCE_PATH)) {
    if (new RegExp(`^${TOP}/`).test(name)) continue; // a repository path, checked above
    if (!FILES.some((f) => f === name || f.endsWith(`/${name}`))) problems.push(`${name}: no file ends so`);
  }
  for (const [, href] of text.matchAll(LINK)) {
    if (/^([a-z]+:|#|\/)/.test(href)) continue; // another site, this page, or a path the service serves
    const [target, anchor] = href.split("#");
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(page), target));
    if (!exists(resolved)) problems.push(`${href}: the link's target does not exist`);
    else if (anchor && /^docs\/[^/]+\.md$/.test(resolved) && !hasAnchor(path.basename(resolved, ".md"), anchor))
      problems.push(`${href}: no such heading`);
  }
  return [...new Set([...problems, ...anchorProblems(text)])];
}

const PAGES = [
  ...fs
    .readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
  "README.md",
];

describe("docs/*.md and README.md", () => {
  it("name only files and folders that exist, and link only to targets and headings that exist", () => {
    expect(PAGES.length).toBeGreaterThan(10);
    const problems = PAGES.flatMap((page) =>
      problemsIn(page, fs.readFileSync(path.join(ROOT, page), "utf8")).map((problem) => `${page}: ${problem}`),
    );
    expect(problems).toEqual([]);
  });

  it("the check fails on names that do not exist (a made-up page)", () => {
    const page = [
      "The code: `src/schema/work-orders/nope.ts`, `rules/nowhere.ts`, test/made-up/ and `bench/*.nope`;",
      "see [the guide](events.md#no-such-heading), [a file](../src/gone.ts) and docs/missing.md#x.",
      "These exist: `src/schema/core/audit.ts`, `core/audit.ts`, ./asset-types/queries.ts, `scripts/*.mjs`,",
      "src/schema/<feature>/, test/work-orders/lifecycle*.test.ts, [events](events.md#signing-and-verification).",
    ].join("\n");
    expect(problemsIn("docs/made-up.md", page).sort()).toEqual(
      [
        "src/schema/work-orders/nope.ts: no such file or folder",
        "rules/nowhere.ts: no file ends so",
        "test/made-up/: no such file or folder",
        "bench/*.nope: no such file or folder",
        "events.md#no-such-heading: no such heading",
        "../src/gone.ts: the link's target does not exist",
        "docs/missing.md: no such file or folder",
        "docs/missing.md: no such guide",
        "docs/missing.md#x: no such heading",
      ].sort(),
    );
  });
});

describe("the code's citations of a guide", () => {
  it("name a guide that exists and, for a part of it, its heading (`docs/<guide>.md#anchor`)", () => {
    const sources = TREE.filter(
      (e) =>
        /^(src|test|bench|scripts)\/.*\.(ts|mjs)$/.test(e) &&
        !e.startsWith("src/generated/") &&
        e !== "test/structure/docs-paths.test.ts", // its made-up page cites headings that do not exist
    ).concat("prisma/schema.prisma");
    const problems = sources.flatMap((file) =>
      anchorProblems(fs.readFileSync(path.join(ROOT, file), "utf8"), { sectionNumbers: false }).map(
        (problem) => `${file}: ${problem}`,
      ),
    );
    expect(problems).toEqual([]);
  });
});
