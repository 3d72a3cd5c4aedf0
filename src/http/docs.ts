// The documentation pages: /docs (the index: interface docs, GraphQL, AsyncAPI and every guide) and
// /docs/<guide>, the guides of docs/*.md rendered to HTML with marked. A guide is looked up by name in
// the listing of docs/ (never by joining a request path), so no request reaches another file. Pages
// load nothing from other hosts (Content-Security-Policy says so to the browser).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Marked, type Tokens } from "marked";

/** docs/ at the repository root: two levels up from src/http/ and from dist/http/ alike. */
const DOCS_DIR = fileURLToPath(new URL("../../docs/", import.meta.url));

export const DOCS_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const STYLE = `body{font:16px/1.55 system-ui,sans-serif;margin:0;color:#1d2330}
nav{background:#1d2330;padding:.6rem 1.5rem}nav a{color:#fff;margin-right:1.2rem;text-decoration:none}
main{max-width:60rem;margin:0 auto;padding:1rem 1.5rem 4rem}a{color:#0b5cad}
code{background:#f1f3f6;padding:.1em .3em;border-radius:3px;font-size:90%}
pre{background:#f1f3f6;padding:.8rem;overflow:auto;border-radius:4px}pre code{background:none;padding:0}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #d5d9e0;padding:.3rem .6rem;vertical-align:top;text-align:left}
th{background:#f6f7f9}h1,h2,h3{line-height:1.25}`;

function htmlPage(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><nav><a href="/docs">Documentation</a><a href="/v1/buyer/docs">Buyer</a><a href="/v1/supplier/docs">Supplier</a><a href="/v1/partners/docs">Internal teams</a></nav>
<main>${body}</main></body></html>`;
}

/** The guides' names: docs/<name>.md. */
function guideNames(): string[] {
  return fs
    .readdirSync(DOCS_DIR)
    .filter((f) => /^[a-z0-9][a-z0-9-]*\.md$/.test(f))
    .map((f) => f.slice(0, -3))
    .sort();
}

const titleOf = (markdown: string, name: string) => /^# (.+)$/m.exec(markdown)?.[1] ?? name;
const readGuide = (name: string) => fs.readFileSync(path.join(DOCS_DIR, `${name}.md`), "utf8");

export function docsIndex(options: { graphiql: boolean }): string {
  const iface = (name: string, label: string) =>
    `<li><a href="/v1/${name}/docs">${label}</a> (<a href="/v1/${name}/openapi.json">OpenAPI</a>)</li>`;
  const list = guideNames()
    .map((name) => `<li><a href="/docs/${name}">${escapeHtml(titleOf(readGuide(name), name))}</a></li>`)
    .join("\n");
  return htmlPage(
    "Work order service",
    `<h1>Work order service</h1>
<h2>Interfaces</h2><ul>
${iface("buyer", "Buyer interface")}
${iface("supplier", "Supplier interface")}
${iface("partners", "Internal teams interface")}
<li><a href="/graphql">GraphQL</a>${options.graphiql ? " (GraphiQL)" : ""}</li>
<li><a href="/asyncapi.json">Webhook events</a> (AsyncAPI)</li></ul>
<h2>Guides</h2><ul>
${list}</ul>`,
  );
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function slugger() {
  const seen = new Map<string, number>();
  return (text: string) => {
    const base = text
      .toLowerCase()
      .trim()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return n === 0 ? base : `${base}-${n}`;
  };
}

/** Links between guides (`events.md#signing-and-verification`) point at their pages; other links stay as written. */
function guideLink(href: string, names: Set<string>): string {
  const match = /^(?:\.\/|docs\/)?([a-z0-9][a-z0-9-]*)\.md(#.*)?$/.exec(href);
  return match && names.has(match[1]) ? `/docs/${match[1]}${match[2] ?? ""}` : href;
}

function render(markdown: string, names: Set<string>): string {
  const slug = slugger();
  const marked = new Marked({
    gfm: true,
    walkTokens(token) {
      if (token.type === "link") (token as Tokens.Link).href = guideLink((token as Tokens.Link).href, names);
    },
    renderer: {
      heading({ tokens, depth }) {
        const html = this.parser.parseInline(tokens);
        const text = html.replace(/<[^>]+>/g, "").replace(/&[#\w]+;/g, "");
        return `<h${depth} id="${escapeHtml(slug(text))}">${html}</h${depth}>\n`;
      },
    },
  });
  return marked.parse(markdown, { async: false });
}

const rendered = new Map<string, { mtimeMs: number; html: string }>();

/** The page of a guide (a name from the listing of docs/), or undefined when there is none. */
export function guidePage(name: string): string | undefined {
  const names = guideNames();
  if (!names.includes(name)) return undefined;
  const { mtimeMs } = fs.statSync(path.join(DOCS_DIR, `${name}.md`));
  let page = rendered.get(name);
  if (page?.mtimeMs !== mtimeMs) {
    const markdown = readGuide(name);
    page = { mtimeMs, html: htmlPage(titleOf(markdown, name), render(markdown, new Set(names))) };
    rendered.set(name, page);
  }
  return page.html;
}
