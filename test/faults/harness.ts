// The fault-injection suite's machinery (`npm run test:faults`): its own redis-server (no persistence:
// a restart is an empty Redis), its own database, the service's API and worker as child processes
// (`node --import tsx src/main.ts`, as in production), a webhook receiver on loopback that counts every
// webhook-id, and the bookkeeping each scenario reports: events produced, distinct deliveries,
// duplicates, lost, and processes that exited without being told to.
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createDb, sqlPool, type Db } from "../../src/db.ts";
import { applyFixture, type ApplyResult } from "../../src/operator/apply.ts";
import { BASE_FIXTURE } from "../support/app.ts";
import { createTestDatabase } from "../support/databases.ts";
import { waitFor } from "../support/wait.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

// ---------------------------------------------------------------- processes

/** A child process whose exit is a failure unless `kill()` asked for it. */
class Child {
  private proc?: ChildProcess;
  private expectedExit = false;
  readonly unexpectedExits: string[] = [];
  private output = "";

  constructor(
    readonly name: string,
    private readonly command: string,
    private readonly args: string[],
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  start(): void {
    this.expectedExit = false;
    this.output = "";
    const proc = spawn(this.command, this.args, { cwd: ROOT, env: this.env, stdio: ["ignore", "pipe", "pipe"] });
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-20_000));
    proc.stdout!.on("data", keep);
    proc.stderr!.on("data", keep);
    proc.on("exit", (code, signal) => {
      if (!this.expectedExit)
        this.unexpectedExits.push(`${this.name} exited (code ${code}, signal ${signal}): …${this.output.slice(-3000)}`);
    });
    this.proc = proc;
  }

  get running(): boolean {
    return !!this.proc && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** What the process wrote lately (stdout and stderr). */
  get log(): string {
    return this.output;
  }

  /** Sends `signal` (SIGKILL: kill -9) and waits for the exit. */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    const proc = this.proc;
    if (!proc || !this.running) return;
    this.expectedExit = true;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill(signal);
    // This process only, and only while it lingers: a restarted one is another process.
    const stubborn = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(stubborn);
  }
}

class RedisServer extends Child {
  constructor(
    readonly port: number,
    dir: string,
  ) {
    super("redis-server", "redis-server", [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
    ]);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async ready(): Promise<void> {
    await waitFor(
      () =>
        new Promise<boolean>((resolve) => {
          const socket = net.connect(this.port, "127.0.0.1", () => socket.write("PING\r\n"));
          socket.once("data", (d) => {
            socket.destroy();
            resolve(d.toString().startsWith("+PONG"));
          });
          socket.once("error", () => resolve(false));
        }),
      10_000,
      "redis-server",
    );
  }
}

/** `ROLES=api` or `ROLES=worker` of src/main.ts. */
export class Service extends Child {
  constructor(
    readonly role: "api" | "worker",
    readonly port: number,
    env: NodeJS.ProcessEnv,
  ) {
    super(role, process.execPath, ["--import", "tsx", path.join(ROOT, "src/main.ts")], {
      ...env,
      ROLES: role,
      PORT: String(port),
      LOG_LEVEL: "info",
    });
  }

  async ready(): Promise<void> {
    if (this.role === "api") {
      await waitFor(
        () =>
          fetch(`http://127.0.0.1:${this.port}/readyz`).then(
            (r) => r.ok,
            () => false,
          ),
        60_000,
        "the API",
      );
    } else {
      await waitFor(() => this.log.includes('"msg":"workers started"'), 60_000, "the worker");
    }
  }

  async restart(): Promise<void> {
    this.start();
    await this.ready();
  }
}

// ---------------------------------------------------------------- the receiver

interface Arrival {
  webhookId: string;
  path: string;
  workOrderId: number;
  count: number;
}

/** Answers 204, or 500 while `failing`; counts every webhook-id (failed answers are not arrivals). */
export async function startReceiver() {
  const arrivals = new Map<string, Arrival>();
  const state = { failing: false, failedAnswers: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (state.failing) {
        state.failedAnswers++;
        return void res.writeHead(500).end();
      }
      const webhookId = String(req.headers["webhook-id"]);
      const seen = arrivals.get(webhookId);
      if (seen) seen.count++;
      else
        arrivals.set(webhookId, {
          webhookId,
          path: req.url ?? "",
          workOrderId: JSON.parse(Buffer.concat(chunks).toString()).data.workOrderId,
          count: 1,
        });
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    arrivals,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

// ---------------------------------------------------------------- the installation

export interface Installation {
  db: Db;
  databaseUrl: string;
  fixture: ApplyResult;
  redis: RedisServer;
  receiver: Receiver;
  api: Service;
  worker: Service;
  /** The admin connection (pg_terminate_backend on this database's connections only). */
  admin: pg.Client;
  close(): Promise<void>;
}

/** The suite's own database, Redis, receiver, and the API and worker processes (not started). */
export async function install(env: Record<string, string> = {}): Promise<Installation> {
  const database = await createTestDatabase();
  const db = createDb(database.url, { max: 4 });
  const receiver = await startReceiver();
  const fixture = structuredClone(BASE_FIXTURE);
  fixture.apiKeys.push({
    ref: "faults-key",
    kind: "buyer",
    contact: "alice",
    rateLimit: { requests: 100_000_000, windowSeconds: 1 },
  });
  for (const hook of fixture.webhookEndpoints) hook.url = `${receiver.base}/${hook.ref}`;
  const applied = await applyFixture(db, fixture, { allowInsecureWebhooks: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wo-faults-redis-"));
  const redis = new RedisServer(await freePort(), dir);
  redis.start();
  await redis.ready();
  const serviceEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `wofaults:${crypto.randomBytes(3).toString("hex")}`,
    NODE_ENV: "production",
    WEBHOOK_ALLOW_INSECURE_URLS: "true",
    RELAY_INTERVAL_MS: "50",
    WORK_LEASE_MS: "15000",
    ...env,
  };
  const api = new Service("api", await freePort(), serviceEnv);
  const worker = new Service("worker", 0, serviceEnv);
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  admin.on("error", () => undefined);
  return {
    db,
    databaseUrl: database.url,
    fixture: applied,
    redis,
    receiver,
    api,
    worker,
    admin,
    async close() {
      await Promise.all([api.kill("SIGTERM"), worker.kill("SIGTERM"), redis.kill("SIGTERM")]);
      await admin.end().catch(() => undefined);
      await receiver.close();
      await db.$disconnect();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------- events and the report

let nextWorkOrderId = 1_000_000;

/**
 * Commits `count` status updates of work orders no one else uses (the payload writeEvent writes), as the
 * API's transactions would: each gives one delivery to acme's endpoint and one to coolco's. Plain SQL, so
 * producing a burst costs the machine little. Returns their work order ids.
 */
export async function produceEvents(i: Installation, count: number, batch = 250): Promise<number[]> {
  const { refs } = i.fixture;
  const ids: number[] = [];
  for (let done = 0; done < count; done += batch) {
    const chunk = Array.from({ length: Math.min(batch, count - done) }, () => nextWorkOrderId++);
    const changedAt = new Date().toISOString();
    await sqlPool(i.db).query(
      `INSERT INTO "OutboxEvent" ("eventType", "workOrderId", "buyerCompanyId", payload)
       SELECT 'workorder.status_update', w, $1, p FROM unnest($2::int[], $3::jsonb[]) AS e(w, p)`,
      [
        refs.acme,
        chunk,
        chunk.map((workOrderId) =>
          JSON.stringify({
            workOrderId,
            buyerCompanyId: refs.acme,
            customer: "Acme Foods",
            location: "Store 1 Portland",
            supplierFacilityId: refs["coolco-pdx"],
            visibleToSupplierFacilityIds: [],
            status: "ConfirmedByServiceProvider",
            oldStatus: "PendingConfirmationByServiceProvider",
            newStatus: "ConfirmedByServiceProvider",
            changedBy: "Fault Suite",
            changedAt,
            action: "confirm",
          }),
        ),
      ],
    );
    ids.push(...chunk);
  }
  return ids;
}

/** Each event of these work orders is expected at both endpoints (acme-hook, coolco-hook). */
const ENDPOINT_PATHS = ["/acme-hook", "/coolco-hook"];

export interface ScenarioReport {
  scenario: string;
  events: number;
  expected: number;
  distinct: number;
  duplicates: number;
  lost: number;
  unexpectedExits: string[];
  seconds: number;
  notes: string;
}

/** Counts what arrived for these work orders' events (one event per work order). */
export function tally(receiver: Receiver, workOrderIds: number[]) {
  const wanted = new Set(workOrderIds);
  const got = [...receiver.arrivals.values()].filter((a) => wanted.has(a.workOrderId));
  const byTarget = new Set(got.map((a) => `${a.path}#${a.workOrderId}`));
  const expected = workOrderIds.length * ENDPOINT_PATHS.length;
  const missing = workOrderIds.flatMap((w) =>
    ENDPOINT_PATHS.filter((p) => !byTarget.has(`${p}#${w}`)).map((p) => `${p}#${w}`),
  );
  return {
    expected,
    distinct: got.length,
    duplicates: got.reduce((n, a) => n + a.count - 1, 0),
    lost: missing.length,
    missing,
  };
}

const REPORT_FILE = path.join(os.tmpdir(), "wo-faults", "report.json");

export function printReport(reports: ScenarioReport[]): void {
  fs.mkdirSync(path.dirname(REPORT_FILE), { recursive: true });
  fs.writeFileSync(REPORT_FILE, JSON.stringify(reports, null, 2));
  const rows = reports.map(
    (r) =>
      `| ${r.scenario} | ${r.events} | ${r.expected} | ${r.distinct} | ${r.duplicates} | ${r.lost} | ${r.unexpectedExits.length} | ${r.seconds} | ${r.notes} |`,
  );
  console.log(
    [
      "",
      "| scenario | events | expected deliveries | distinct delivered | duplicates | lost | unexpected exits | s | notes |",
      "|---|---|---|---|---|---|---|---|---|",
      ...rows,
      "",
      `JSON: ${REPORT_FILE}`,
    ].join("\n"),
  );
}
