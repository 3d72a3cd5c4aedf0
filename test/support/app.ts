// Starts the real service for a test file: its own database (cloned from the migrated template), its
// own Redis key prefix, the fixture applied through the operator's code path, and the HTTP server on a
// free port. Requests go over HTTP exactly as an integrator's would.
import crypto from "node:crypto";
import fs from "node:fs";
import { Writable } from "node:stream";
import pino from "pino";
import { expect } from "vitest";
import { loadConfig, type Config } from "../../src/config.ts";
import { startApp, type App } from "../../src/app.ts";
import { createDb, type Db } from "../../src/db.ts";
import { createCountingDb, type StatementCounter } from "../../bench/counting-pool.ts";
import { applyFixture, type ApplyResult } from "../../src/operator/apply.ts";
import { createTestDatabase } from "./databases.ts";
import { OpenApiChecker, type Violation } from "./openapi-check.ts";

export const BASE_FIXTURE = JSON.parse(fs.readFileSync(new URL("../fixtures/base.json", import.meta.url), "utf8"));

/** The base fixture plus Rita, an Acme contact whose role only reads, with the key "acme-readonly-key". */
export function withReadOnlyKey() {
  const fixture = structuredClone(BASE_FIXTURE);
  fixture.contacts.push({
    ref: "rita",
    email: "rita@acme.example",
    nameGiven: "Rita",
    nameFamily: "Reader",
    buyerFacility: "acme-hq",
    roles: ["viewer"],
  });
  fixture.apiKeys.push({
    ref: "acme-readonly-key",
    kind: "buyer",
    contact: "rita",
    rateLimit: { requests: 1000, windowSeconds: 20 },
  });
  return fixture;
}

export interface TestApp {
  url: string;
  db: Db;
  databaseUrl: string;
  config: Config;
  fixture: ApplyResult;
  app: App;
  /** Every log line the service wrote, parsed. */
  logs: Record<string, unknown>[];
  /**
   * With `countStatements`: the SQL statements sent on the app's database pool so far (the bench's
   * counting pool, bench/counting-pool.ts), for statements-per-request checks.
   */
  statements?: StatementCounter;
  /**
   * Every REST exchange of `call` that the published OpenAPI document does not describe (status,
   * content type, body; the request, when the service accepted it). Also appended to
   * `$OPENAPI_VIOLATIONS/<pid>.jsonl` when that variable names a directory.
   */
  violations: Violation[];
  /** Headers of a fixture key by ref. */
  headers(keyRef: string): Record<string, string>;
  call(
    keyRef: string | null,
    method: string,
    path: string,
    body?: unknown,
    extraHeaders?: Record<string, string>,
  ): Promise<Reply>;
  graphql(keyRef: string | null, query: string, variables?: Record<string, unknown>): Promise<Reply>;
  /**
   * Puts a REST exchange sent without `call` (a raw multipart upload) through `call`'s checks and
   * example recording; `requestBody` is the JSON body sent, undefined for any other.
   */
  recordExchange(method: string, path: string, requestBody: unknown, reply: Reply): Promise<void>;
  /** Another API instance on the same database and Redis (for shared-state tests). */
  secondInstance(): Promise<{ url: string; app: App; close: () => Promise<void> }>;
  /**
   * After changing a key, contact, facility or company in the database directly: waits until every
   * instance's key cache has heard of it (it does within milliseconds; this makes the next request's
   * answer certain).
   */
  keyChangesSeen(): Promise<void>;
  close(): Promise<void>;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

// The published documents, read once per test process from the first app that needs them.
let checker: Promise<OpenApiChecker> | undefined;
async function loadChecker(url: string): Promise<OpenApiChecker> {
  const docs: Record<string, Record<string, unknown>> = {};
  for (const iface of ["buyer", "supplier", "partners"])
    docs[iface] = await (await fetch(`${url}/v1/${iface}/openapi.json`)).json();
  return new OpenApiChecker(docs);
}

/**
 * With OPENAPI_EXAMPLES=<dir>: the first exchange of each operation and status (200, 400) of this test
 * process, appended to <dir>/<pid>.jsonl; scripts/openapi-examples.sh makes the documents' examples
 * of them (src/rest/openapi-examples.json).
 */
const examplesSeen = new Set<string>();
function recordExample(
  checker: OpenApiChecker,
  method: string,
  path: string,
  request: unknown,
  status: number,
  body: unknown,
) {
  const dir = process.env.OPENAPI_EXAMPLES;
  const operation = dir && (status === 200 || status === 400) ? checker.operationOf(method, path) : undefined;
  if (!dir || !operation || examplesSeen.has(`${operation} ${status}`)) return;
  if (status === 200 && typeof body !== "object") return; // a download: no example
  examplesSeen.add(`${operation} ${status}`);
  fs.mkdirSync(dir, { recursive: true });
  // Only an accepted request is an example (a refused one may be hostile: JSON too deep to stringify).
  const example = { operation, path, status, request: status === 200 ? request : undefined, body };
  fs.appendFileSync(`${dir}/${process.pid}.jsonl`, `${JSON.stringify(example)}\n`);
}

/** A logger that writes nothing, for services a test starts beside its app. */
export const silentLogger = () => pino({ level: "silent" });

function captureLogger(lines: Record<string, unknown>[]) {
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return pino({ level: "info" }, stream);
}

export async function startTestApp(
  options: { fixture?: unknown; configure?: (c: Config) => void; countStatements?: boolean; now?: () => Date } = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: database.url,
    PORT: "0",
    ROLES: "api",
    REDIS_PREFIX: `wotest:${crypto.randomBytes(4).toString("hex")}`,
    NODE_ENV: "test",
  });
  options.configure?.(config);
  const counting = options.countStatements ? createCountingDb(database.url, 5) : undefined;
  const db = counting?.db ?? createDb(database.url, { max: 5 });
  const fixture = await applyFixture(db, options.fixture ?? BASE_FIXTURE, {
    allowInsecureWebhooks: config.webhookAllowInsecureUrls,
  });
  const logs: Record<string, unknown>[] = [];
  const app = await startApp(config, { db, logger: captureLogger(logs), ...(options.now ? { now: options.now } : {}) });
  const url = `http://127.0.0.1:${app.port}`;
  const others: (() => Promise<void>)[] = [];
  const instances = [app];

  const headers = (keyRef: string) => {
    const key = fixture.keys[keyRef];
    if (!key?.svcKey) throw new Error(`no key ${keyRef} in the fixture`);
    return { "X-API-KEY": key.apiKey, "SVC-KEY": key.svcKey };
  };

  const call = async (
    keyRef: string | null,
    method: string,
    path: string,
    body?: unknown,
    extra: Record<string, string> = {},
    base = url,
  ) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(keyRef ? headers(keyRef) : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...extra,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    const reply = { status: response.status, headers: response.headers, body: parsed };
    if (path.startsWith("/v1/")) await record(method, path, body, reply);
    return reply;
  };

  const violations: Violation[] = [];
  const record = async (method: string, path: string, body: unknown, reply: Reply) => {
    checker ??= loadChecker(url);
    let requestBody = body;
    if (typeof body === "string") {
      try {
        requestBody = JSON.parse(body);
      } catch {
        requestBody = undefined; // not JSON: nothing to check
      }
    }
    const found = (await checker).check({
      method,
      url: path,
      requestBody,
      status: reply.status,
      contentType: reply.headers.get("content-type"),
      body: reply.body,
    });
    violations.push(...found);
    recordExample(await checker, method, path, requestBody, reply.status, reply.body);
    const dir = process.env.OPENAPI_VIOLATIONS;
    if (dir && found.length) {
      const test = expect.getState().currentTestName ?? "";
      fs.mkdirSync(dir, { recursive: true });
      fs.appendFileSync(
        `${dir}/${process.pid}.jsonl`,
        found.map((v) => `${JSON.stringify({ ...v, test })}\n`).join(""),
      );
    }
  };

  return {
    url,
    db,
    databaseUrl: database.url,
    config,
    fixture,
    app,
    logs,
    statements: counting?.counter,
    violations,
    headers,
    call: (keyRef, method, path, body, extra) => call(keyRef, method, path, body, extra),
    graphql: (keyRef, query, variables) => call(keyRef, "POST", "/graphql", { query, variables }),
    recordExchange: record,
    async secondInstance() {
      const second = await startApp(config, { db, logger: captureLogger([]) });
      others.push(() => second.close());
      instances.push(second);
      return { url: `http://127.0.0.1:${second.port}`, app: second, close: () => second.close() };
    },
    async keyChangesSeen() {
      await Promise.all(instances.map((instance) => instance.viewers?.sync()));
    },
    async close() {
      for (const close of others) await close().catch(() => undefined);
      await app.close();
      await db.$disconnect();
      await database.drop();
    },
  };
}
