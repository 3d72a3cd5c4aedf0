// The example live board (examples/live-board/, docs/live-board.md), served in development only at
// /examples/live-board: its page and stylesheet as they are in the repository, and its script bundled
// with esbuild on first request, the graphql-ws browser client included from node_modules (no CDN).
// esbuild is a devDependency: it is loaded here, on first use, never in production.
import fs from "node:fs";
import type http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const LIVE_BOARD_PATH = "/examples/live-board";

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../examples/live-board");

/** Same origin only; the websocket to /graphql is 'self' too. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'none'";

let bundle: Promise<string> | undefined;

async function bundled(): Promise<string> {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [path.join(DIR, "board.js")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2020",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0].text;
}

const FILES: Record<string, { type: string; read: () => Promise<string> }> = {
  "": { type: "text/html; charset=utf-8", read: () => fs.promises.readFile(path.join(DIR, "index.html"), "utf8") },
  "/board.css": {
    type: "text/css; charset=utf-8",
    read: () => fs.promises.readFile(path.join(DIR, "board.css"), "utf8"),
  },
  "/board.js": {
    type: "text/javascript; charset=utf-8",
    read: () =>
      (bundle ??= bundled().catch((error) => {
        bundle = undefined; // a broken script is bundled again once it is fixed
        throw error;
      })),
  },
};

/** The board's three files; anything else under its path is a 404. */
export async function serveLiveBoard(res: http.ServerResponse, pathname: string): Promise<void> {
  const name = pathname.slice(LIVE_BOARD_PATH.length).replace(/\/$/, "");
  const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  if (!file) {
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
    return void res.end("not found");
  }
  const body = await file.read();
  res.writeHead(200, { "content-type": file.type, "content-security-policy": CSP, "cache-control": "no-cache" });
  res.end(body);
}
