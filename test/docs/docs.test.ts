// The documentation works offline: the interface docs (Redoc from the npm package), GraphiQL (inlined
// from @graphql-yoga/render-graphiql) and the guides of docs/*.md at /docs, checked over HTTP and in
// headless Chromium with every request to another host blocked.
// UPDATE_SCREENSHOT=1 (`npm run docs:screenshot`) also writes docs/img/docs-ui.png.
import fs from "node:fs";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { HAVE_CHROMIUM, NO_CHROMIUM_MESSAGE, offlineBrowser, type OfflineBrowser } from "../support/browser.ts";

const DOCS_DIR = new URL("../../docs/", import.meta.url);
const GUIDES = fs
  .readdirSync(DOCS_DIR)
  .filter((f) => f.endsWith(".md"))
  .map((f) => f.slice(0, -3));
const SCREENSHOT = new URL("../../docs/img/docs-ui.png", import.meta.url);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

/** A GET whose path is sent exactly as written (fetch would normalise `..`). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    http
      .get({ hostname, port, path }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      })
      .on("error", reject);
  });
}

/** Every script, stylesheet, image and frame a page loads: none may come from another host. */
function loadedUrls(html: string): string[] {
  return [...html.matchAll(/<(?:script|img|iframe)\b[^>]*\bsrc="([^"]*)"|<link\b[^>]*\bhref="([^"]*)"/g)].map(
    (m) => m[1] ?? m[2],
  );
}

describe("/docs over HTTP", () => {
  it("the index links the three interfaces, GraphQL, the AsyncAPI document and every guide in docs/", async () => {
    const reply = await fetch(`${t.url}/docs`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await reply.text();
    for (const iface of ["buyer", "supplier", "partners"]) {
      expect(html).toContain(`href="/v1/${iface}/docs"`);
      expect(html).toContain(`href="/v1/${iface}/openapi.json"`);
    }
    expect(html).toContain('href="/graphql"');
    expect(html).toContain('href="/asyncapi.json"');
    expect(GUIDES).toEqual(
      expect.arrayContaining(["events", "operator", "work-order-lifecycle", "work-order-search", "api"]),
    );
    for (const guide of GUIDES) expect(html).toContain(`href="/docs/${guide}"`);
  });

  it("renders a guide: its title, tables, GitHub-style heading anchors, links between guides", async () => {
    const reply = await fetch(`${t.url}/docs/operator`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await reply.text();
    expect(html).toContain("<title>The operator CLI</title>");
    expect(html).toContain("<table>");
    expect(html).toContain('<h2 id="webhook_allow_insecure_urls"><code>WEBHOOK_ALLOW_INSECURE_URLS</code></h2>');
    expect(html).toContain('href="#webhook_allow_insecure_urls"');
    const api = await (await fetch(`${t.url}/docs/api`)).text();
    expect(api).toContain('href="/docs/events"');
    expect(api).not.toMatch(/href="[^"]*\.md/);
  });

  it("answers 404 for anything that is not a guide, path tricks included", async () => {
    for (const path of [
      "/docs/nope",
      "/docs/../package.json",
      "/docs/..%2Fpackage.json",
      "/docs/%2e%2e/README",
      "/docs/events.md",
      "/docs/img",
      "/docs/EVENTS",
    ]) {
      const reply = await rawGet(path);
      expect(reply.status, path).toBe(404);
      expect(reply.body, path).not.toContain('"name": "wo-service"');
    }
  });

  it("serves Redoc's bundle from node_modules (gzip, ETag), and only the assets it knows", async () => {
    const reply = await fetch(`${t.url}/assets/redoc.standalone.js`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(reply.headers.get("content-encoding")).toBe("gzip");
    const bundled = fs.readFileSync(
      new URL("../../node_modules/redoc/bundles/redoc.standalone.js", import.meta.url),
      "utf8",
    );
    expect(await reply.text()).toBe(bundled);
    const again = await fetch(`${t.url}/assets/redoc.standalone.js`, {
      headers: { "if-none-match": reply.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
    for (const path of [
      "/assets/nope.js",
      "/assets/../package.json",
      "/assets/..%2F..%2Fpackage.json",
      "/assets/redoc/bundles/redoc.standalone.js",
    ]) {
      expect((await rawGet(path)).status, path).toBe(404);
    }
  });

  it("no page loads anything from another host: interface docs, GraphiQL, guides", async () => {
    const pages = ["/docs", "/docs/events", "/v1/buyer/docs", "/v1/supplier/docs", "/v1/partners/docs", "/graphql"];
    for (const path of pages) {
      const reply = await fetch(`${t.url}${path}`, { headers: { accept: "text/html" } });
      expect(reply.status, path).toBe(200);
      const html = await reply.text();
      const urls = loadedUrls(html);
      if (path.endsWith("/docs") && path.startsWith("/v1/")) expect(urls).toContain("/assets/redoc.standalone.js");
      for (const url of urls) expect(url, `${path} loads ${url}`).not.toMatch(/^(https?:)?\/\//);
    }
  });
});

describe("GraphiQL in production", () => {
  it("is off: /graphql serves no page", async () => {
    const prod = await startTestApp({
      configure: (c) => {
        c.development = false;
      },
    });
    try {
      const reply = await fetch(`${prod.url}/graphql`, { headers: { accept: "text/html" } });
      expect(await reply.text()).not.toContain("GraphiQL");
    } finally {
      await prod.close();
    }
  });
});

const BROWSER_SUITE = "in headless Chromium, with the network beyond this machine blocked";
describe.skipIf(!HAVE_CHROMIUM)(HAVE_CHROMIUM ? BROWSER_SUITE : `${BROWSER_SUITE} (${NO_CHROMIUM_MESSAGE})`, () => {
  let browser: OfflineBrowser;
  beforeAll(async () => {
    browser = await offlineBrowser();
  });
  afterAll(() => browser?.close());

  it("each interface's docs page renders every operation of its OpenAPI document", async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    for (const iface of ["buyer", "supplier", "partners"]) {
      const doc = await (await fetch(`${t.url}/v1/${iface}/openapi.json`)).json();
      const operations = Object.values(doc.paths as Record<string, object>).reduce(
        (n, p) => n + Object.keys(p).length,
        0,
      );
      expect(operations, iface).toBeGreaterThan(0);
      await page.goto(`${t.url}/v1/${iface}/docs`);
      await page.waitForSelector('[data-section-id^="operation/"]', { timeout: 20_000 });
      expect(await page.locator('[data-section-id^="operation/"]').count(), iface).toBe(operations);
      expect(await page.locator("h1").first().textContent(), iface).toContain(`${iface} interface`);
      if (iface === "buyer") {
        expect(await page.getByText("/v1/buyer/location/locations/{id}").count()).toBeGreaterThan(0);
        if (process.env.UPDATE_SCREENSHOT) await page.screenshot({ path: SCREENSHOT.pathname });
      }
    }
    expect(errors).toEqual([]);
    expect(browser.offsite).toEqual([]);
    await page.close();
  }, 90_000); // three pages, each rendering a large document in Chromium: slow on a loaded machine

  it("GraphiQL renders its editor from the inlined bundle", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${t.url}/graphql`);
    await page.waitForSelector(".graphiql-container .graphiql-query-editor", { timeout: 20_000 });
    expect(browser.offsite).toEqual([]);
    await page.close();
  });

  it("a guide renders with its tables and anchors", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${t.url}/docs`);
    await page.getByRole("link", { name: "The operator CLI" }).click();
    await page.waitForSelector("h2#webhook_allow_insecure_urls");
    expect(await page.locator("main table").count()).toBeGreaterThan(3);
    expect(browser.offsite).toEqual([]);
    await page.close();
  });
});
