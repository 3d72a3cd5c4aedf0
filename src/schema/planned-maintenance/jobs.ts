// The built-in generator's trigger in the worker role: a BullMQ job scheduler adds a `round` job every
// `intervalMs`, and a worker runs a generation round for it (rules/generator.ts). The job carries no
// state: the schedules, their due times and the run logs are in PostgreSQL, so a lost Redis, a lost or
// repeated job, or several workers change nothing but when the next round runs. Every worker process
// re-registers the scheduler at start (an upsert), so an emptied Redis gets it back.
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Db } from "../../db.ts";
import type { Logger } from "../../logger.ts";
import { generateDue } from "./rules/generator.ts";

export const PM_QUEUE = "pm-generator";
const SCHEDULER_ID = "pm-generator-round";

export interface PmJobOptions {
  db: Db;
  connection: Redis;
  prefix: string;
  logger: Logger;
  now: () => Date;
  /** Time between rounds (PM_GENERATOR_INTERVAL_MS). */
  intervalMs: number;
}

export function startPmJobs(o: PmJobOptions) {
  // The queue gets a connection of its own: the worker's blocks on Redis.
  const producer = o.connection.duplicate();
  const queue = new Queue(PM_QUEUE, { connection: producer, prefix: o.prefix });
  const ready = queue
    .upsertJobScheduler(
      SCHEDULER_ID,
      { every: o.intervalMs },
      { name: "round", opts: { attempts: 3, removeOnComplete: 100, removeOnFail: 100 } },
    )
    .catch((err: Error) =>
      o.logger.warn(
        { err: err.message },
        "planned maintenance job scheduler not registered; will retry at the next start",
      ),
    );
  const worker = new Worker(
    PM_QUEUE,
    async () => {
      const result = await generateDue({ db: o.db, now: o.now, logger: o.logger });
      if (result.schedules) o.logger.info(result, "planned maintenance round");
      return result;
    },
    { connection: o.connection, prefix: o.prefix, concurrency: 1 },
  );
  worker.on("error", (err) => o.logger.warn({ err: err.message }, "planned maintenance worker error"));
  // A failed round changes nothing durable (its transactions rolled back); the next one retries.
  worker.on("failed", (job, err) =>
    o.logger.warn({ jobId: job?.id, err: err.message }, "planned maintenance round failed"),
  );
  return {
    queue,
    async close() {
      // Without Redis the scheduler's upsert would wait forever; a lost upsert is redone at the next start.
      await Promise.race([ready, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
      // So would a graceful close; a round cut short by that rolls back (see above).
      await worker.close(o.connection.status !== "ready");
      await queue.close();
      producer.disconnect();
    },
  };
}
