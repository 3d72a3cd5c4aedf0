// Shared by the commerce tests: a test app whose file storage is a temp directory of its own (removed
// on close), the base fixture plus a CAD supplier and keys without billing permissions, work orders
// driven through the real actions, and multipart requests (well-formed through FormData, malformed raw).
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { BASE_FIXTURE, startTestApp, type Reply, type TestApp } from "../support/app.ts";

export interface CommerceApp extends TestApp {
  /** The storage directory of this app. */
  dir: string;
  /** Every file under the storage directory (temporary ones included), relative paths. */
  storedFiles(): string[];
}

export function commerceFixture() {
  const fixture = structuredClone(BASE_FIXTURE);
  fixture.supplierFacilities.push({ ref: "coolco-van", company: "coolco", name: "CoolCo Vancouver", currency: "CAD" });
  fixture.buyerSupplierRelationships.push({
    ref: "rel-van",
    buyer: "acme",
    supplierFacility: "coolco-van",
    rankings: [],
  });
  fixture.contacts.push(
    {
      ref: "vic",
      email: "vic@coolco.example",
      nameGiven: "Vic",
      nameFamily: "Vancouver",
      supplierFacility: "coolco-van",
      roles: ["dispatcher", "billing"],
    },
    {
      ref: "tom",
      email: "tom@coolco.example",
      nameGiven: "Tom",
      nameFamily: "Tech",
      supplierFacility: "coolco-pdx",
      roles: ["technician"],
    },
    {
      ref: "rita",
      email: "rita@acme.example",
      nameGiven: "Rita",
      nameFamily: "Requester",
      buyerFacility: "acme-hq",
      roles: ["requester"],
    },
  );
  const unlimited = { requests: 100_000, windowSeconds: 20 };
  fixture.apiKeys.push(
    { ref: "van-key", kind: "supplier", contact: "vic", rateLimit: unlimited },
    { ref: "coolco-tech-key", kind: "supplier", contact: "tom", rateLimit: unlimited },
    { ref: "acme-requester-key", kind: "buyer", contact: "rita", rateLimit: unlimited },
  );
  return fixture;
}

function walk(dir: string, base = dir): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? walk(path.join(dir, e.name), base) : [path.relative(base, path.join(dir, e.name))],
    );
}

export async function startCommerceApp(
  options: { uploadMaxBytes?: number; fixture?: unknown } = {},
): Promise<CommerceApp> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wo-files-"));
  const t = await startTestApp({
    fixture: options.fixture ?? commerceFixture(),
    configure: (c) => {
      c.fileStorageDir = dir;
      c.uploadMaxBytes = options.uploadMaxBytes;
    },
  });
  const closeApp = t.close;
  return Object.assign(t, {
    dir,
    storedFiles: () => walk(dir),
    close: async () => {
      await closeApp();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  });
}

// ---- work orders

const WO = "/v1/buyer/work_order/work_orders";
const SUPPLIER_WO = "/v1/supplier/work_order/work_orders";

/** A work order assigned to the supplier of `supplierKey`, driven to `until` through the real actions. */
export async function workOrder(
  t: TestApp,
  until: "assigned" | "confirmed" | "WaitingForReview" | "WorkReviewedAndCompleted",
  options: { supplier?: string; supplierKey?: string; location?: string; extra?: Record<string, unknown> } = {},
): Promise<number> {
  const refs = t.fixture.refs;
  const supplierKey = options.supplierKey ?? "coolco-key";
  const created = await t.call("acme-key", "POST", WO, {
    title: "Cooler warm",
    locationId: refs[options.location ?? "store-1"],
    problemTypeId: refs.hvac,
    buyerFacilityId: refs["acme-hq"],
    buyerCompanyId: refs.acme,
    createdBy: "alice@acme.example",
    supplierFacilityId: refs[options.supplier ?? "coolco-pdx"],
    ...options.extra,
  });
  expect(created.status, created.body.message).toBe(200);
  const id = created.body.data.id as number;
  const steps: [string, string, Record<string, unknown>][] = [];
  if (until !== "assigned") steps.push([supplierKey, "confirm", {}]);
  if (until === "WaitingForReview" || until === "WorkReviewedAndCompleted") {
    steps.push(
      [supplierKey, "check_in", { technicianEmail: "tina@coolco.example" }],
      [supplierKey, "check_out", { outcome: "completed" }],
    );
  }
  for (const [key, action, body] of steps) {
    const reply = await t.call(key, "PATCH", `${SUPPLIER_WO}/${action}`, { id, ...body });
    expect(reply.status, `${action}: ${reply.body.message}`).toBe(200);
  }
  if (until === "WorkReviewedAndCompleted") {
    const reply = await t.call("acme-key", "PATCH", `${WO}/work_reviewed_and_completed`, { id });
    expect(reply.status, reply.body.message).toBe(200);
  }
  return id;
}

// ---- multipart

export interface Part {
  name: string;
  content: Buffer | string;
  /** A file part when given (also "" for a file without a name). */
  filename?: string;
  type?: string;
}

export const pdf = (size = 2048, fill = 0x41) => {
  const bytes = Buffer.alloc(size, fill);
  Buffer.from("%PDF-1.7\n").copy(bytes);
  return bytes;
};

/** A multipart/form-data body built by hand (so tests can also send what FormData never would). */
export function multipartBody(
  parts: Part[],
  boundary = "----wo-test-boundary-7d93",
): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ""}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ""}\r\n`,
      ),
    );
    chunks.push(Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content));
    chunks.push(Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * POSTs a raw body; the reply even when the server answers before reading all of it. The exchange goes
 * through the same OpenAPI check and example recording as `t.call`'s.
 */
export function post(
  t: TestApp,
  keyRef: string | null,
  pathName: string,
  body: Buffer,
  contentType: string,
  extra: Record<string, string> = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const url = new URL(pathName, t.url);
    const req = http.request(url, {
      method: "POST",
      headers: {
        ...(keyRef ? t.headers(keyRef) : {}),
        "content-type": contentType,
        "content-length": String(body.length),
        ...extra,
      },
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          /* not JSON */
        }
        const reply = {
          status: res.statusCode ?? 0,
          headers: new Headers(res.headers as Record<string, string>),
          body: parsed,
        };
        t.recordExchange("POST", pathName, undefined, reply).then(() => resolve(reply), reject);
      });
    });
    // Writing may fail once the server has answered and closed: the answer is what counts.
    req.on("error", (error) => setTimeout(() => reject(error), 200));
    req.end(body);
  });
}

export const upload = (t: TestApp, keyRef: string | null, pathName: string, parts: Part[]) => {
  const { body, contentType } = multipartBody(parts);
  return post(t, keyRef, pathName, body, contentType);
};

export const filePart = (content: Buffer | string, filename = "quote.pdf", type = "application/pdf"): Part => ({
  name: "file",
  content,
  filename,
  type,
});

/**
 * A multipart POST streamed in pieces (chunked, or with a declared length): write parts of the body,
 * then end it or drop the connection. `reply` settles with the answer, or the socket error.
 */
export function streamingPost(
  t: TestApp,
  keyRef: string | null,
  pathName: string,
  contentType: string,
  contentLength?: number,
) {
  const req = http.request(new URL(pathName, t.url), {
    method: "POST",
    headers: {
      ...(keyRef ? t.headers(keyRef) : {}),
      "content-type": contentType,
      ...(contentLength === undefined
        ? { "transfer-encoding": "chunked" }
        : { "content-length": String(contentLength) }),
    },
  });
  const reply = new Promise<Reply | Error>((resolve) => {
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: new Headers(res.headers as Record<string, string>),
          body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "null"),
        }),
      );
    });
    req.on("error", resolve);
  });
  req.flushHeaders();
  return {
    write: (chunk: Buffer | string) => new Promise<void>((resolve) => req.write(chunk, () => resolve())),
    end: (chunk?: Buffer | string) => req.end(chunk),
    destroy: () => req.destroy(),
    reply,
  };
}
