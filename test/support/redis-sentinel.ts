// A Redis Sentinel group on this machine for failover tests: a primary, a replica and three Sentinels
// (quorum 2), each a redis-server process on a free port with its files in a temporary folder. Debian's
// redis-server runs as a Sentinel with --sentinel, so no other package is needed.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { waitFor } from "./wait.ts";

export const MASTER_NAME = "testmaster";

export interface SentinelGroup {
  sentinels: { host: string; port: number }[];
  /** The port of the current primary, as the Sentinels report it. */
  primaryPort(): Promise<number>;
  /** kill -9 the current primary and wait until the Sentinels have promoted the replica; returns the new port. */
  killPrimary(): Promise<number>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startSentinelGroup(): Promise<SentinelGroup> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "redis-sentinel-"));
  const processes = new Map<number, ChildProcess>();
  const start = (port: number, args: string[]) => {
    const child = spawn("redis-server", args, { cwd: dir, stdio: "ignore" });
    processes.set(port, child);
  };
  const server = (port: number, extra: string[] = []) =>
    start(port, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...extra]);

  const [primary, replica, ...sentinelPorts] = await Promise.all([1, 2, 3, 4, 5].map(() => freePort()));
  server(primary);
  server(replica, ["--replicaof", "127.0.0.1", String(primary)]);
  for (const port of sentinelPorts) {
    const file = path.join(dir, `sentinel-${port}.conf`);
    fs.writeFileSync(
      file,
      [
        `port ${port}`,
        "bind 127.0.0.1",
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primary} 2`,
        `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
        `sentinel failover-timeout ${MASTER_NAME} 5000`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
        "",
      ].join("\n"),
    );
    start(port, [file, "--sentinel"]);
  }

  const ask = async <T>(port: number, work: (r: Redis) => Promise<T>) => {
    const r = new Redis({
      port,
      host: "127.0.0.1",
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    r.on("error", () => undefined);
    try {
      await r.connect();
      return await work(r);
    } finally {
      r.disconnect();
    }
  };
  const primaryPort = () =>
    ask(sentinelPorts[0], async (r) => {
      const [, port] = (await r.call("SENTINEL", "get-master-addr-by-name", MASTER_NAME)) as [string, string];
      return Number(port);
    });

  // Ready: the replica in sync and every Sentinel aware of both the replica and the other Sentinels.
  await waitFor(
    async () => (await ask(replica, (r) => r.info("replication")).catch(() => "")).includes("master_link_status:up"),
    10_000,
    "the replica to sync",
  );
  for (const port of sentinelPorts) {
    await waitFor(
      async () => {
        const [master] = (await ask(port, (r) => r.call("SENTINEL", "masters")).catch(() => [])) as string[][];
        const field = (name: string) => Number(master?.[master.indexOf(name) + 1]);
        return field("num-slaves") >= 1 && field("num-other-sentinels") >= 2;
      },
      15_000,
      `sentinel ${port} to see the group`,
    );
  }

  return {
    sentinels: sentinelPorts.map((port) => ({ host: "127.0.0.1", port })),
    primaryPort,
    async killPrimary() {
      const before = await primaryPort();
      processes.get(before)?.kill("SIGKILL");
      return waitFor(
        async () => {
          const now = await primaryPort().catch(() => before);
          if (now === before) return undefined;
          const role = (await ask(now, (r) => r.call("ROLE")).catch(() => [])) as string[];
          return role[0] === "master" ? now : undefined;
        },
        30_000,
        "the Sentinels to promote the replica",
      );
    },
    async close() {
      for (const child of processes.values()) child.kill("SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
