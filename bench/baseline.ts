// The yardstick: a bare node:http server with a pg.Pool of 10 connections that answers every request
// with the first page of the bench company's locations and their total (the two statements a location
// list needs, sent in parallel) in the REST envelope. No routing, auth, rate limit, GraphQL or Prisma:
// whatever the service costs beyond this is theirs.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createCountingPool, type StatementCounter } from "./counting-pool.ts";

const LOCATION_COLUMNS = `id, "buyerCompanyId", "regionId", "locationTypeId", name, currency, "internalCode",
  "storeContacts", "locationTypeDetails", "createdAt"`;

export const BASELINE_SQL = {
  page: `SELECT ${LOCATION_COLUMNS} FROM "Location" WHERE "buyerCompanyId" = $1 ORDER BY id LIMIT 10 OFFSET 0`,
  count: `SELECT count(*)::int AS count FROM "Location" WHERE "buyerCompanyId" = $1`,
};

export interface Baseline {
  url: string;
  counter: StatementCounter;
  close(): Promise<void>;
}

export async function startBaseline(databaseUrl: string, buyerCompanyId: number): Promise<Baseline> {
  const { pool, counter } = createCountingPool(databaseUrl, 10);
  const server = http.createServer(async (_req, res) => {
    try {
      const [page, total] = await Promise.all([
        pool.query(BASELINE_SQL.page, [buyerCompanyId]),
        pool.query(BASELINE_SQL.count, [buyerCompanyId]),
      ]);
      const body = JSON.stringify({ type: "Location", data: page.rows, count: total.rows[0].count, status: "ok" });
      res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      res.end(body);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    }
  });
  server.keepAliveTimeout = 5_000; // as the service's server
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counter,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}
