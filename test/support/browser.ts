// Headless Chromium for tests that look at pages as a person would: Debian's `chromium`
// (scripts/ensure-browser.sh installs it) driven by playwright-core, with a fresh profile, and every
// request to a host other than this machine aborted and recorded.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";
export const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);
export const NO_CHROMIUM_MESSAGE = `skipped: ${CHROMIUM} is missing (bash scripts/ensure-browser.sh, or apt-get install chromium)`;

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

export interface OfflineBrowser {
  context: BrowserContext;
  /** Every request to another host, aborted (expected to stay empty). */
  offsite: string[];
  close(): Promise<void>;
}

export async function offlineBrowser(): Promise<OfflineBrowser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "chromium-profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 800 },
  });
  const offsite: string[] = [];
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (LOCAL_HOSTS.has(url.hostname)) return route.continue();
    offsite.push(url.href);
    return route.abort("blockedbyclient");
  });
  return {
    context,
    offsite,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
