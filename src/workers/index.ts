// The worker role: every BullMQ worker this service runs. close() lets in-flight jobs finish.
import { Redis } from "ioredis";
import type { Config } from "../config.ts";
import type { Services } from "../schema/context.ts";
import { mailWorker } from "./mail.ts";

export async function startWorkers(config: Config, services: Services) {
  // BullMQ workers block on Redis, so they get a connection of their own.
  const connection = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const workers = [mailWorker(connection, config.redisPrefix, config.smtpUrl, services.logger)];
  services.logger.info({ workers: workers.length }, "workers started");
  return {
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      connection.disconnect();
    },
  };
}
