// DATABASE_URL with several hosts and DATABASE_READ_URL (src/database-urls.ts, src/db.ts): how the
// settings are read, and that a pool over a multi-host URL passes over a host that refuses, answering the
// refused query as a connection error (503) and the next one from the next host. The standby check, the
// replicas and a real promotion: test/faults/postgres-cluster.fault.ts.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { hostUrls, replicaUrls } from "../../src/database-urls.ts";
import { createDb, isConnectionError, primaryClient } from "../../src/db.ts";

describe("multi-host PostgreSQL URLs", () => {
  it("splits hosts into single-host URLs with the same login, database and parameters", () => {
    expect(hostUrls("postgresql://postgres@127.0.0.1:5432/wo")).toEqual(["postgresql://postgres@127.0.0.1:5432/wo"]);
    expect(hostUrls("postgresql://u:p@h1:5432,h2:5433/db?a=1&target_session_attrs=read-write&b=2")).toEqual([
      "postgresql://u:p@h1:5432/db?a=1&b=2",
      "postgresql://u:p@h2:5433/db?a=1&b=2",
    ]);
    expect(hostUrls("postgres://h1,h2/db?target_session_attrs=read-write")).toEqual([
      "postgres://h1/db",
      "postgres://h2/db",
    ]);
    expect(() => hostUrls("postgresql://u@h1,,h2/db")).toThrow("an empty host");
  });

  it("reads DATABASE_READ_URL as URLs, hosts or both; none without the setting", () => {
    expect(loadConfig({}).databaseReadUrls).toEqual([]);
    expect(
      loadConfig({ DATABASE_READ_URL: "postgresql://u@r1:5432,r2/db, postgres://x@r3/db2" }).databaseReadUrls,
    ).toEqual(["postgresql://u@r1:5432/db", "postgresql://u@r2/db", "postgres://x@r3/db2"]);
    expect(loadConfig({}).databaseReadMaxLagMs).toBe(3_000);
    expect(() => replicaUrls("r1:5432")).toThrow("is not a postgresql:// URL");
  });

  it("passes over a host that refuses: that query is a connection error, the next one reaches the next host", async () => {
    const server = new URL(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/wo_service");
    const url = `postgresql://${server.username}@127.0.0.1:1,${server.host}/postgres?target_session_attrs=read-write`;
    const db = createDb(url, { max: 1 });
    try {
      const refused = await db.$queryRaw`SELECT 1`.catch((error: unknown) => error);
      expect(isConnectionError(refused)).toBe(true);
      expect(await db.$queryRaw`SELECT pg_is_in_recovery() AS standby`).toEqual([{ standby: false }]);
    } finally {
      await db.$disconnect();
    }
    // A single connection (the key cache's) goes to the host the pool found.
    const client = primaryClient(url);
    await client.connect();
    expect((await client.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await client.end();
  });

  it("opens every session of the pool with the service's settings: no JIT compilation, no parallel workers (db.ts SESSION_OPTIONS)", async () => {
    const server = new URL(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/wo_service");
    const url = `postgresql://${server.username}@${server.host}/postgres`;
    const plain = primaryClient(url);
    await plain.connect();
    // The server's own defaults are PostgreSQL's: the pool's sessions differ from a plain one.
    const serverDefault = (
      await plain.query(
        "SELECT current_setting('jit') AS jit, current_setting('max_parallel_workers_per_gather') AS workers",
      )
    ).rows[0];
    await plain.end();
    const db = createDb(url, { max: 2 });
    try {
      const sessions = await Promise.all(
        [1, 2].map(
          () =>
            db.$queryRaw<
              { jit: string; workers: string }[]
            >`SELECT current_setting('jit') AS jit, current_setting('max_parallel_workers_per_gather') AS workers`,
        ),
      );
      expect({ serverDefault, sessions }).toEqual({
        serverDefault: { jit: "on", workers: "2" },
        sessions: [[{ jit: "off", workers: "0" }], [{ jit: "off", workers: "0" }]],
      });
    } finally {
      await db.$disconnect();
    }
  });
});
