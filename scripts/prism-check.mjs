// The measurement of scripts/prism-check.sh: starts the service (API role, from the sources) on the
// database the shell script prepared, puts each interface's OpenAPI document behind Stoplight Prism's
// validating proxy (`prism proxy <doc> <service> --errors=false`, prism-cli fetched by npx at run time),
// sends every operation an ordinary request (its recorded example body from
// src/rest/openapi-examples.json) and a bad one through it, and counts the violations Prism reports:
// in its log and in the `sl-violations` header of each proxied answer.
// Usage: node scripts/prism-check.mjs <output dir> <applied fixture JSON>; environment: DATABASE_URL.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";

const [dir, appliedFile] = process.argv.slice(2);
if (!dir || !appliedFile) throw new Error("usage: node scripts/prism-check.mjs <output dir> <applied fixture JSON>");
const applied = JSON.parse(fs.readFileSync(appliedFile, "utf8"));
const examples = JSON.parse(fs.readFileSync(new URL("../src/rest/openapi-examples.json", import.meta.url), "utf8"));
const PRISM = process.env.PRISM_CLI ?? "@stoplight/prism-cli@5";
// The fixture's keys (test/fixtures/base.json): a buyer, a third-party supplier, an internal team's partner key.
const KEY_OF = { buyer: "acme-key", supplier: "coolco-key", partners: "inhouse-partner-key" };

// Each child leads a process group of its own (npx and what it runs), ended as a whole.
const children = [];
const end = (child) => {
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    /* already gone */
  }
};
const stop = () => children.forEach(end);
process.on("exit", stop);

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });

/** Starts a child logging to `logFile`; resolves once `isReady(output so far)` holds, within 3 minutes. */
async function start(name, args, env, logFile, isReady) {
  const child = spawn("npx", args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  children.push(child);
  const log = fs.createWriteStream(logFile);
  let output = "";
  for (const stream of [child.stdout, child.stderr])
    stream.on("data", (chunk) => {
      log.write(chunk);
      output = (output + chunk).slice(-8192);
    });
  for (let waited = 0; waited < 180_000; waited += 500) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} (see ${logFile})`);
    if (await isReady(output)) return child;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${name} was not ready within 3 minutes (see ${logFile})`);
}

const servicePort = await freePort();
const service = `http://127.0.0.1:${servicePort}`;
await start(
  "the service",
  ["--no-install", "tsx", "src/main.ts"],
  { PORT: String(servicePort), ROLES: "api", REDIS_PREFIX: `wo-prism-${process.pid}`, LOG_LEVEL: "warn" },
  `${dir}/service.log`,
  async () => (await fetch(`${service}/readyz`).catch(() => undefined))?.status === 200,
);

const PDF = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(2048, 0x41)]);

/** A value of the wrong kind for a schema (resolved through $ref/allOf by the caller's document). */
const wrongKind = (schema) => (schema?.type === "string" ? 12345 : "not-a-valid-value");

/**
 * A path parameter's value for an ordinary request: the first row of the list the path continues
 * (`/work_orders` for `/work_orders/{id}`), else the id of the recorded answer, else 1. One id for
 * `ids`: a comma list crashes prism-cli 5's proxy (TypeError "value.split is not a function",
 * stoplightio/prism#2710); test/support/openapi-check.ts checks lists.
 */
async function paramValue(path, name, auth, recordedId) {
  const list = path.slice(0, path.indexOf(`/{${name}}`));
  const reply = await fetch(`${service}${list}`, { headers: auth }).catch(() => undefined);
  const rows = reply?.ok ? (await reply.json()).data : undefined;
  if (Array.isArray(rows) && rows[0]?.id !== undefined) return String(rows[0].id);
  return name === "id" && recordedId !== undefined ? String(recordedId) : "1";
}

/** The ordinary and the bad request of one operation. */
async function requestsOf(doc, path, method, op, auth) {
  const example = examples[`${method.toUpperCase()} ${path}`] ?? {};
  const id = example.ok?.data && typeof example.ok.data === "object" ? example.ok.data.id : undefined;
  const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const fill = (value) => params.reduce((p, name) => p.replace(`{${name}}`, value(name)), path);
  const values = {};
  for (const name of params) values[name] = await paramValue(path, name, auth, id);
  const ordinaryPath = fill((name) => values[name]);
  const jsonBody = op.requestBody?.content?.["application/json"];
  const multipart = op.requestBody?.content?.["multipart/form-data"];
  const ordinary = { kind: "ordinary", method, path: ordinaryPath };
  let bad;
  if (jsonBody) {
    ordinary.json = example.request ?? {};
    const schema = resolve(doc, jsonBody.schema);
    const required = schema.required ?? [];
    const body = { ...ordinary.json };
    if (required.length) for (const name of required) delete body[name];
    else {
      const [name, property] = Object.entries(schema.properties ?? {})[0] ?? ["id", {}];
      body[name] = wrongKind(resolve(doc, property));
    }
    bad = { kind: "bad", method, path: ordinaryPath, json: body };
  } else if (multipart) {
    ordinary.file = true;
    bad = { kind: "bad", method, path: ordinaryPath, json: {} };
  } else if (params.length) {
    bad = { kind: "bad", method, path: fill(() => "not-a-number") };
  } else {
    const integer = (op.parameters ?? []).find((p) => p.in === "query" && resolve(doc, p.schema)?.type === "integer");
    if (integer) bad = { kind: "bad", method, path: `${path}?${integer.name}=not-a-number` };
  }
  return bad ? [ordinary, bad] : [ordinary];
}

function resolve(doc, schema) {
  if (!schema) return {};
  if (schema.$ref)
    return resolve(
      doc,
      schema.$ref
        .split("/")
        .slice(1)
        .reduce((o, k) => o[k], doc),
    );
  if (schema.allOf?.length === 1) return resolve(doc, schema.allOf[0]);
  return schema;
}

/**
 * A nullable enum lists null among its values (OpenAPI 3.0.3; docs/api.md). Prism's reading of the
 * document (@stoplight/http-spec) adds null to such an enum once more, ajv refuses the schema ("enum
 * must NOT have duplicate items") and Prism then checks nothing of that body, silently. So each
 * document is measured twice: as published, and as Prism can read it (null left out of those enums,
 * which Prism puts back), the second being the real check of every body.
 */
function prismReadable(value) {
  if (Array.isArray(value)) return value.map(prismReadable);
  if (!value || typeof value !== "object") return value;
  const out = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, prismReadable(v)]));
  if (out.nullable === true && Array.isArray(out.enum)) out.enum = out.enum.filter((v) => v !== null);
  return out;
}

/** The request and answer bodies of a document whose schema holds a nullable enum: unchecked by Prism. */
function uncheckedBodies(doc) {
  const holds = (schema, seen = new Set()) => {
    if (!schema || typeof schema !== "object" || seen.has(schema)) return false;
    seen.add(schema);
    if (schema.$ref) return holds(resolve(doc, schema), seen);
    if (schema.nullable === true && Array.isArray(schema.enum)) return true;
    return Object.values(schema).some((v) => holds(v, seen));
  };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, op]) =>
      [["request", op.requestBody], ...Object.entries(op.responses ?? {}).map(([status, r]) => [status, r])]
        .filter(([, part]) => Object.values(part?.content ?? {}).some((c) => holds(c.schema)))
        .map(([part]) => `${method.toUpperCase()} ${path} ${part}`),
    ),
  );
}

const results = [];
const unchecked = {};
for (const variant of ["published", "prism-readable"]) {
  for (const iface of ["buyer", "supplier", "partners"]) {
    const published = await (await fetch(`${service}/v1/${iface}/openapi.json`)).json();
    if (variant === "published") unchecked[iface] = uncheckedBodies(published);
    const doc = variant === "published" ? published : prismReadable(published);
    const docFile = `${dir}/${iface}.${variant}.openapi.json`;
    fs.writeFileSync(docFile, JSON.stringify(doc, null, 1));
    const prismPort = await freePort();
    const prismLog = `${dir}/prism-${iface}.${variant}.log`;
    const prism = await start(
      `prism proxy (${iface}, ${variant})`,
      ["--yes", PRISM, "proxy", docFile, service, "--errors=false", "--host", "127.0.0.1", "--port", String(prismPort)],
      {},
      prismLog,
      (output) => output.includes("Prism is listening"),
    );
    const key = applied.keys[KEY_OF[iface]];
    const auth = { "X-API-KEY": key.apiKey, "SVC-KEY": key.svcKey };
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
    // Creations first, so that later reads and changes find rows.
    const order = { post: 0, put: 1, patch: 2, get: 3, delete: 4 };
    operations.sort((a, b) => order[a.method] - order[b.method]);
    for (const { path, method, op } of operations) {
      for (const request of await requestsOf(doc, path, method, op, auth)) {
        const headers = { ...auth };
        let body;
        if (request.json !== undefined) {
          headers["content-type"] = "application/json";
          body = JSON.stringify(request.json);
        } else if (request.file) {
          body = new FormData();
          body.append("file", new Blob([PDF], { type: "application/pdf" }), "invoice.pdf");
        }
        const response = await fetch(`http://127.0.0.1:${prismPort}${request.path}`, {
          method: method.toUpperCase(),
          headers,
          body,
        }).catch((error) => {
          throw new Error(`${method.toUpperCase()} ${request.path} through Prism failed (see ${prismLog})`, {
            cause: error,
          });
        });
        await response.arrayBuffer();
        const violations = JSON.parse(response.headers.get("sl-violations") ?? "[]");
        results.push({
          variant,
          iface,
          operation: `${method.toUpperCase()} ${path}`,
          kind: request.kind,
          path: request.path,
          status: response.status,
          violations,
        });
      }
    }
    end(prism);
  }
}

fs.writeFileSync(`${dir}/results.json`, JSON.stringify(results, null, 1));
const where = (v) => (String(v.location?.[0] ?? "").startsWith("request") ? "request" : "response");
const summary = { uncheckedBodiesOfThePublishedDocuments: unchecked };
for (const variant of ["published", "prism-readable"]) {
  summary[variant] = {};
  for (const kind of ["ordinary", "bad"]) {
    const mine = results.filter((r) => r.variant === variant && r.kind === kind);
    const all = mine.flatMap((r) => r.violations.map((v) => ({ ...v, where: where(v), operation: r.operation })));
    summary[variant][kind] = {
      requests: mine.length,
      operations: new Set(mine.map((r) => r.operation)).size,
      answered: Object.fromEntries(
        [...new Set(mine.map((r) => r.status))].sort().map((s) => [s, mine.filter((r) => r.status === s).length]),
      ),
      requestViolations: all.filter((v) => v.where === "request").length,
      responseViolations: all.filter((v) => v.where === "response").length,
      // A bad request is meant to break the document's rules: only an ordinary one's request violations are listed.
      operationsWithViolations: [
        ...new Set(
          all.filter((v) => kind === "ordinary" || v.where === "response").map((v) => `${v.operation} (${v.where})`),
        ),
      ],
    };
  }
  // Prism's own log, counted apart from the header: its validator's "Violation: request|response" lines.
  summary[variant].prismLog = Object.fromEntries(
    ["buyer", "supplier", "partners"].map((iface) => {
      const lines = fs.readFileSync(`${dir}/prism-${iface}.${variant}.log`, "utf8").split("\n");
      const count = (at) => lines.filter((l) => l.includes("[VALIDATOR]") && l.includes(`Violation: ${at}`)).length;
      return [iface, { request: count("request"), response: count("response") }];
    }),
  );
}
console.log(JSON.stringify(summary, null, 2));
stop();
