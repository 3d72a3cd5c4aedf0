// Browser assets of the docs pages, served from installed npm packages so the docs work offline (no
// CDN). A fixed table maps each URL to a package file: no part of a request path reaches the file
// system. Each file is read and gzipped once, on first use.
import fs from "node:fs";
import type http from "node:http";
import { createRequire } from "node:module";
import crypto from "node:crypto";
import zlib from "node:zlib";

const require = createRequire(import.meta.url);

export const ASSET_PREFIX = "/assets/";

const ASSETS: Record<string, { file: string; type: string }> = {
  // Redoc's standalone bundle (React included): the interface docs pages (src/rest/openapi.ts).
  "redoc.standalone.js": { file: "redoc/bundles/redoc.standalone.js", type: "text/javascript; charset=utf-8" },
};

interface Loaded {
  body: Buffer;
  gzip: Buffer;
  etag: string;
  type: string;
}

const loaded = new Map<string, Loaded>();

function load(name: string): Loaded | undefined {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!asset) return undefined;
  let entry = loaded.get(name);
  if (!entry) {
    const body = fs.readFileSync(require.resolve(asset.file));
    const etag = `"${crypto.createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
    entry = { body, gzip: zlib.gzipSync(body), etag, type: asset.type };
    loaded.set(name, entry);
  }
  return entry;
}

/** Answers a GET/HEAD of /assets/<name>; false when the path is not an asset (the caller 404s). */
export function serveAsset(req: http.IncomingMessage, res: http.ServerResponse, pathname: string): boolean {
  if (!pathname.startsWith(ASSET_PREFIX) || (req.method !== "GET" && req.method !== "HEAD")) return false;
  const asset = load(pathname.slice(ASSET_PREFIX.length));
  if (!asset) return false;
  const headers: Record<string, string> = {
    "content-type": asset.type,
    "cache-control": "public, max-age=3600",
    etag: asset.etag,
    vary: "accept-encoding",
  };
  if (req.headers["if-none-match"] === asset.etag) {
    res.writeHead(304, headers);
    res.end();
    return true;
  }
  const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
  const body = gzip ? asset.gzip : asset.body;
  res.writeHead(200, {
    ...headers,
    ...(gzip ? { "content-encoding": "gzip" } : {}),
    "content-length": String(body.length),
  });
  res.end(req.method === "HEAD" ? undefined : body);
  return true;
}
