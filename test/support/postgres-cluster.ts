// A PostgreSQL primary and a streaming hot standby on this machine, for the replica and failover tests:
// initdb, then pg_basebackup -R of the primary into a second data directory, each server on a free
// port with its files in a temporary folder, started with pg_ctl (as the postgres OS user when run as
// root: PostgreSQL refuses to run as root). Replication is synchronous (synchronous_standby_names = '*'):
// a commit the primary answered is on the standby's disk, so promoting it loses nothing committed.
// The schema is applied with `prisma migrate deploy`, as in production.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { waitFor } from "./wait.ts";

const BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
const DATABASE = "wo_cluster";

export interface PostgresCluster {
  primaryPort: number;
  standbyPort: number;
  /** A single-host URL of the database on one server. */
  url(port: number): string;
  /** The multi-host DATABASE_URL the service is given: primary first, then the standby. */
  databaseUrl: string;
  /** Runs SQL on one server (its database); the rows. */
  query<T = Record<string, unknown>>(port: number, sql: string): Promise<T[]>;
  /** Stops replaying WAL on the standby (it still receives it): its lag grows with every write. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** pg_ctl stop -m immediate (a crash, as far as clients see). */
  stop(port: number): void;
  start(port: number): Promise<void>;
  /** pg_ctl promote on the standby, and waits until it accepts writes. */
  promoteStandby(): Promise<void>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const root = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-cluster-"));
  if (root) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString());
    fs.chownSync(dir, uid, gid);
  }
  /** A PostgreSQL program, as the postgres user when this process is root. */
  const run = (program: string, args: string[]) =>
    execFileSync(
      root ? "runuser" : path.join(BIN, program),
      root ? ["-u", "postgres", "--", path.join(BIN, program), ...args] : args,
      {
        cwd: dir,
        stdio: "pipe",
      },
    );
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const dataDir = (port: number) => path.join(dir, port === primaryPort ? "primary" : "standby");
  const url = (port: number) => `postgresql://postgres@127.0.0.1:${port}/${DATABASE}`;
  const start = async (port: number) => {
    run("pg_ctl", ["-D", dataDir(port), "-l", path.join(dir, `${port}.log`), "-w", "-t", "30", "start"]);
  };
  const stop = (port: number) => {
    try {
      run("pg_ctl", ["-D", dataDir(port), "-m", "immediate", "-w", "stop"]);
    } catch {
      // already stopped
    }
  };
  const query = async <T>(port: number, sql: string, database = DATABASE): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url(port).replace(`/${DATABASE}`, `/${database}`) });
    client.on("error", () => undefined);
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end().catch(() => undefined);
    }
  };

  try {
    run("initdb", ["-D", dataDir(primaryPort), "-U", "postgres", "--auth=trust", "--no-sync"]);
    fs.appendFileSync(
      path.join(dataDir(primaryPort), "postgresql.conf"),
      [
        "",
        `port = ${primaryPort}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir}'`,
        "wal_level = replica",
        "max_wal_senders = 5",
        "hot_standby = on",
        "fsync = off",
        "full_page_writes = off",
        "shared_buffers = 32MB",
        "",
      ].join("\n"),
    );
    await start(primaryPort);
    await query(primaryPort, `CREATE DATABASE ${DATABASE}`, "postgres");
    execFileSync("npx", ["--no-install", "prisma", "migrate", "deploy"], {
      env: { ...process.env, DATABASE_URL: url(primaryPort) },
      stdio: "pipe",
    });
    run("pg_basebackup", [
      "-h",
      "127.0.0.1",
      "-p",
      String(primaryPort),
      "-U",
      "postgres",
      "-D",
      dataDir(standbyPort),
      "-R",
      "-X",
      "stream",
      "--checkpoint=fast",
    ]);
    // The standby's own port (the last setting wins); primary_conninfo came from -R.
    fs.appendFileSync(path.join(dataDir(standbyPort), "postgresql.conf"), `\nport = ${standbyPort}\n`);
    await start(standbyPort);
    await waitFor(
      async () =>
        (await query<{ state: string }>(primaryPort, "SELECT state FROM pg_stat_replication").catch(() => []))[0]
          ?.state === "streaming",
      30_000,
      "the standby to stream from the primary",
    );
    // Synchronous from now on (set before, the migration's commits would have waited for a standby).
    await query(primaryPort, "ALTER SYSTEM SET synchronous_standby_names = '*'");
    await query(primaryPort, "SELECT pg_reload_conf()");
    await waitFor(
      async () =>
        (await query<{ sync: string }>(primaryPort, "SELECT sync_state AS sync FROM pg_stat_replication"))[0]?.sync ===
        "sync",
      10_000,
      "the standby to be synchronous",
    );
  } catch (error) {
    stop(standbyPort);
    stop(primaryPort);
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    primaryPort,
    standbyPort,
    url,
    databaseUrl: `postgresql://postgres@127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}/${DATABASE}?target_session_attrs=read-write`,
    query: (port, sql) => query(port, sql),
    pauseReplay: async () => void (await query(standbyPort, "SELECT pg_wal_replay_pause()")),
    resumeReplay: async () => void (await query(standbyPort, "SELECT pg_wal_replay_resume()")),
    stop,
    start,
    async promoteStandby() {
      run("pg_ctl", ["-D", dataDir(standbyPort), "-w", "promote"]);
      await waitFor(
        async () =>
          (await query<{ standby: boolean }>(standbyPort, "SELECT pg_is_in_recovery() AS standby").catch(() => []))[0]
            ?.standby === false,
        30_000,
        "the standby to be promoted",
      );
    },
    async close() {
      stop(standbyPort);
      stop(primaryPort);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
