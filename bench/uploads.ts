// `npx tsx bench/uploads.ts` (`npm run bench -- uploads`): a 512 MB invoice PDF through
// POST /v1/supplier/invoice/file/upload_and_publish/{invoiceId} against the running service, next to a
// plain file copy of the same bytes in the same run.
//
//   1. Database wo_bench_uploads_commerce (dropped, created, `prisma migrate deploy`, dropped again at
//      the end), the base fixture plus a buyer and a supplier key without a rate limit.
//   2. A generated PDF of exactly 512 MB (536,870,912 bytes: `%PDF-1.7` header, random body, `%%EOF`),
//      the route's limit, in a temporary directory that also holds the service's FILE_STORAGE_DIR.
//   3. The service (`src/main.ts`, API role) in a child process, so its memory can be read from
//      /proc/<pid>/status (VmRSS) every 20 ms.
//   4. BENCH_ROUNDS rounds (default 5), each: a plain copy of the file (read stream → write stream,
//      fsync'd like the storage's writes) and an upload_and_publish of it for a fresh draft invoice on a
//      work order in WaitingForReview (the client streams the file from disk), in alternating order.
//      Per round: MB/s of both, the ratio, and the service's peak RSS minus its RSS just before the upload.
//   5. One upload of 512 MB + 1 byte: must be refused (400) with nothing left in the storage.
//
// Summary printed; JSON in <tmpdir>/wo-bench/uploads.json. Exit code 1 when the peak RSS growth of any
// round exceeds 64 MB, 2 on failure. A watchdog ends everything (and cleans up) after 600 s.
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { PassThrough, Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { createDb } from "../src/db.ts";
import { applyFixture } from "../src/operator/apply.ts";
import { onServer, recreateDatabase } from "./database.ts";
import { abort, cleanUp, freePort, gitRevision, onCleanUp, ROOT, startService, stopService } from "./common.ts";

const DATABASE = "wo_bench_uploads_commerce";
const FILE_BYTES = 512 * 1024 * 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TARGET_RSS_GROWTH_MB = 64;
const WATCHDOG_SECONDS = 600;
const RESULT_FILE = path.join(os.tmpdir(), "wo-bench", "uploads.json");
const MB = 1024 * 1024;

const started = Date.now();
const log = (message: string) =>
  console.log(`[wo-bench ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}`);
const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Exactly FILE_BYTES: a PDF header, 1 MB of random bytes repeated, and the PDF trailer at the end. */
async function generatePdf(file: string): Promise<void> {
  const block = crypto.randomBytes(MB);
  const head = Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1");
  const tail = Buffer.from("\n%%EOF\n");
  async function* bytes() {
    let left = FILE_BYTES - head.length - tail.length;
    yield head;
    while (left > 0) {
      const chunk = block.subarray(0, Math.min(block.length, left));
      left -= chunk.length;
      yield chunk;
    }
    yield tail;
  }
  await pipeline(Readable.from(bytes()), fs.createWriteStream(file));
}

/** The service's resident set, in bytes (Linux). */
function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Samples the RSS of `pid` every 20 ms until stopped; returns the samples. */
function sampleRss(pid: number) {
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(rssOf(pid)), 20);
  return { samples, stop: () => clearInterval(timer) };
}

/** Streams `file` (plus `extra` bytes) as the multipart part `file`; resolves with the status and body. */
function uploadFile(
  url: string,
  headers: Record<string, string>,
  file: string,
  extra = Buffer.alloc(0),
): Promise<{ status: number; body: any }> {
  const boundary = `----wo-bench-${crypto.randomBytes(8).toString("hex")}`;
  const prefix = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="invoice.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const suffix = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = prefix.length + fs.statSync(file).size + extra.length + suffix.length;
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(length),
      },
    });
    req.on("response", (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || "null") }));
    });
    req.on("error", reject);
    const body = new PassThrough({ highWaterMark: MB });
    body.write(prefix);
    fs.createReadStream(file, { highWaterMark: MB })
      .on("error", reject)
      .on("end", () => body.end(Buffer.concat([extra, suffix])))
      .pipe(body, { end: false });
    body.pipe(req);
  });
}

/** A plain copy of the same bytes, written the way the storage writes (fsync before close). */
async function copy(from: string, to: string): Promise<number> {
  const t0 = performance.now();
  await pipeline(fs.createReadStream(from, { highWaterMark: MB }), fs.createWriteStream(to, { flush: true }));
  const seconds = (performance.now() - t0) / 1000;
  fs.rmSync(to);
  return seconds;
}

function storedFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath ?? (e as { path: string }).path, e.name));
}

async function main() {
  setTimeout(() => abort(`still running after ${WATCHDOG_SECONDS} s`), WATCHDOG_SECONDS * 1000).unref();
  process.once("SIGINT", () => abort("interrupted"));

  log(`database ${DATABASE}`);
  const databaseUrl = await recreateDatabase(DATABASE);
  onCleanUp(() => onServer(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`));
  const db = createDb(databaseUrl, { max: 2 });
  onCleanUp(() => db.$disconnect());
  const fixture = JSON.parse(fs.readFileSync(path.join(ROOT, "test/fixtures/base.json"), "utf8"));
  const unlimited = { requests: 100_000_000, windowSeconds: 1 };
  fixture.apiKeys.push(
    { ref: "bench-buyer", kind: "buyer", contact: "alice", rateLimit: unlimited },
    { ref: "bench-supplier", kind: "supplier", contact: "bob", rateLimit: unlimited },
  );
  const applied = await applyFixture(db, fixture, { allowInsecureWebhooks: false });
  const keyHeaders = (ref: string) => ({ "X-API-KEY": applied.keys[ref].apiKey, "SVC-KEY": applied.keys[ref].svcKey! });
  const refs = applied.refs;

  const work = fs.mkdtempSync(path.join(os.tmpdir(), "wo-bench-uploads-"));
  onCleanUp(async () => fs.rmSync(work, { recursive: true, force: true }));
  const storage = path.join(work, "storage");
  const source = path.join(work, "invoice.pdf");
  log("generating the 512 MB PDF");
  await generatePdf(source);

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const service = await startService(
    {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      ROLES: "api",
      REDIS_PREFIX: `wobench:uploads:${crypto.randomBytes(4).toString("hex")}`,
      FILE_STORAGE_DIR: storage,
      LOG_LEVEL: "warn",
      NODE_ENV: "production",
      UPLOAD_MAX_BYTES: "",
    },
    port,
  );
  onCleanUp(() => stopService(service));
  log(`service pid ${service.pid} on :${port}, RSS ${round(rssOf(service.pid!) / MB)} MB`);

  const call = async (ref: string, method: string, pathName: string, body: unknown) => {
    const response = await fetch(`${base}${pathName}`, {
      method,
      headers: { ...keyHeaders(ref), "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as any;
    if (!response.ok) throw new Error(`${method} ${pathName}: ${response.status} ${json.message}`);
    return json.data;
  };
  /** A draft invoice on a work order in WaitingForReview (display status Completed). */
  async function draftInvoice(): Promise<number> {
    const wo = await call("bench-buyer", "POST", "/v1/buyer/work_order/work_orders", {
      title: "Bench",
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      buyerFacilityId: refs["acme-hq"],
      buyerCompanyId: refs.acme,
      createdBy: "alice@acme.example",
      supplierFacilityId: refs["coolco-pdx"],
    });
    for (const [action, body] of [
      ["confirm", {}],
      ["check_in", { technicianEmail: "tina@coolco.example" }],
      ["check_out", { outcome: "completed" }],
    ] as const) {
      await call("bench-supplier", "PATCH", `/v1/supplier/work_order/work_orders/${action}`, { id: wo.id, ...body });
    }
    return (await call("bench-supplier", "POST", "/v1/supplier/invoice/invoices", { workOrderId: wo.id })).id;
  }
  const publishUrl = (id: number) => `${base}/v1/supplier/invoice/file/upload_and_publish/${id}`;

  // Warm-up: a small PDF through the same path (code loaded and compiled before anything is measured).
  const warm = path.join(work, "warm.pdf");
  fs.writeFileSync(warm, Buffer.concat([Buffer.from("%PDF-1.7\n"), crypto.randomBytes(4 * MB)]));
  const warmed = await uploadFile(publishUrl(await draftInvoice()), keyHeaders("bench-supplier"), warm);
  if (warmed.status !== 200) throw new Error(`warm-up upload: ${warmed.status} ${warmed.body?.message}`);

  const rounds: {
    copyFirst: boolean;
    copyMBps: number;
    uploadMBps: number;
    ratio: number;
    rssBeforeMB: number;
    rssPeakMB: number;
    rssGrowthMB: number;
  }[] = [];
  for (let i = 1; i <= ROUNDS; i++) {
    const invoiceId = await draftInvoice();
    // Alternate which goes first: whatever the disk is still doing from the round before hits both alike.
    const copyFirst = i % 2 === 1;
    const copySecondsBefore = copyFirst ? await copy(source, path.join(work, "copy.pdf")) : 0;
    await sleep(300);
    const idle = sampleRss(service.pid!);
    await sleep(300);
    idle.stop();
    const before = median(idle.samples);
    const during = sampleRss(service.pid!);
    const t0 = performance.now();
    const reply = await uploadFile(publishUrl(invoiceId), keyHeaders("bench-supplier"), source);
    const seconds = (performance.now() - t0) / 1000;
    during.stop();
    if (
      reply.status !== 200 ||
      reply.body.data.status !== "pending" ||
      reply.body.data.invoicePdf.size !== FILE_BYTES
    ) {
      throw new Error(`round ${i}: upload answered ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
    }
    // The stored 512 MB are not needed any more: keep the disk free for what follows.
    for (const file of storedFiles(storage)) fs.rmSync(file);
    const copySeconds = copyFirst ? copySecondsBefore : await copy(source, path.join(work, "copy.pdf"));
    const peak = Math.max(...during.samples, before);
    const result = {
      copyFirst,
      copyMBps: round(FILE_BYTES / MB / copySeconds),
      uploadMBps: round(FILE_BYTES / MB / seconds),
      ratio: round(copySeconds / seconds, 2),
      rssBeforeMB: round(before / MB),
      rssPeakMB: round(peak / MB),
      rssGrowthMB: round((peak - before) / MB),
    };
    rounds.push(result);
    log(
      `round ${i}: copy ${result.copyMBps} MB/s, upload ${result.uploadMBps} MB/s (${result.ratio}×), RSS ${result.rssBeforeMB} → peak ${result.rssPeakMB} MB (+${result.rssGrowthMB} MB)`,
    );
  }

  log("512 MB + 1 byte: must be refused with nothing left");
  const over = sampleRss(service.pid!);
  const overInvoice = await draftInvoice();
  const refused = await uploadFile(publishUrl(overInvoice), keyHeaders("bench-supplier"), source, Buffer.from("x"));
  over.stop();
  await sleep(200);
  const left = storedFiles(storage);
  const overStatus = (
    await call("bench-supplier", "GET", `/v1/supplier/invoice/invoices/${overInvoice}`, undefined).catch(() => null)
  )?.status;
  if (refused.status !== 400 || left.length || overStatus !== "draft") {
    throw new Error(
      `over the limit: ${refused.status} ${refused.body?.message}; files left ${left.length}; invoice ${overStatus}`,
    );
  }

  const worst = Math.max(...rounds.map((r) => r.rssGrowthMB));
  const summary = {
    when: new Date().toISOString(),
    commit: gitRevision(),
    node: process.version,
    cpus: os.cpus().length,
    loadAverage: os.loadavg().map((l) => round(l, 2)),
    fileBytes: FILE_BYTES,
    rounds,
    median: {
      copyMBps: median(rounds.map((r) => r.copyMBps)),
      uploadMBps: median(rounds.map((r) => r.uploadMBps)),
      ratio: median(rounds.map((r) => r.ratio)),
    },
    rssGrowth: { worstMB: worst, target: TARGET_RSS_GROWTH_MB, met: worst <= TARGET_RSS_GROWTH_MB },
    overLimit: {
      status: refused.status,
      message: refused.body?.message,
      filesLeft: left.length,
      rssPeakGrowthMB: round((Math.max(...over.samples) - rounds.at(-1)!.rssBeforeMB * MB) / MB),
    },
  };
  fs.mkdirSync(path.dirname(RESULT_FILE), { recursive: true });
  fs.writeFileSync(RESULT_FILE, JSON.stringify(summary, null, 2));
  console.log(`
Uploads bench (${summary.commit}, node ${summary.node}, ${summary.cpus} CPUs, load ${summary.loadAverage.join(" ")})
  512 MB PDF, ${ROUNDS} rounds (median; copy and upload in alternating order)
  baseline: plain file copy (streams, fsync)          ${String(summary.median.copyMBps).padStart(7)} MB/s
  upload_and_publish (HTTP, busboy, storage, fsync)    ${String(summary.median.uploadMBps).padStart(7)} MB/s  (${summary.median.ratio}× the copy)
  service peak RSS growth (worst round)               ${String(worst).padStart(7)} MB   (target ≤ ${TARGET_RSS_GROWTH_MB} MB: ${summary.rssGrowth.met ? "met" : "MISSED"})
  512 MB + 1 byte: ${refused.status} "${refused.body?.message}", ${left.length} files left
  JSON: ${RESULT_FILE}`);
  if (!summary.rssGrowth.met) process.exitCode = 1;
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 2;
  })
  .finally(cleanUp);
