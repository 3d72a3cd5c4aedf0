// SQL statements per list request: one request at a time, at a small and a large page size, counting
// what the service's pool sent meanwhile. The service runs only the API role, so nothing else talks
// to the database between two requests; each request is made once beforehand so that one-off work is
// not counted.
import { callOnce, type ListCall } from "./calls.ts";
import type { StatementCounter } from "./counting-pool.ts";

export interface StatementProbe {
  route: string;
  call: (limit: number) => ListCall;
  limits: number[];
  /** Rows the page holds at a limit (clamp and table size). */
  expectRows: (limit: number) => number;
}

export interface StatementRow {
  route: string;
  limit: number;
  rows: number;
  statements: number;
}

export interface StatementReport {
  rows: StatementRow[];
  /** Per route: the same number of statements at every page size. */
  constant: Record<string, boolean>;
}

/** Statements the service sent for one request (made once before, to warm it). */
async function statementsOf(
  baseUrl: string,
  headers: Record<string, string>,
  counter: StatementCounter,
  call: ListCall,
) {
  await callOnce(baseUrl, headers, call);
  const before = counter.statements;
  const page = await callOnce(baseUrl, headers, call);
  return { rows: page.data.length, statements: counter.statements - before };
}

export async function countStatements(
  baseUrl: string,
  headers: Record<string, string>,
  counter: StatementCounter,
  probes: StatementProbe[],
): Promise<StatementReport> {
  const report: StatementReport = { rows: [], constant: {} };
  for (const probe of probes) {
    const counts: number[] = [];
    for (const limit of probe.limits) {
      const { rows, statements } = await statementsOf(baseUrl, headers, counter, probe.call(limit));
      if (rows !== probe.expectRows(limit))
        throw new Error(`${probe.route} limit=${limit}: expected ${probe.expectRows(limit)} rows, got ${rows}`);
      report.rows.push({ route: probe.route, limit, rows, statements });
      counts.push(statements);
    }
    report.constant[probe.route] = counts.every((n) => n === counts[0]);
  }
  return report;
}

/** The SQL text of each statement one request sends, in order. */
export async function statementTexts(
  baseUrl: string,
  headers: Record<string, string>,
  counter: StatementCounter,
  call: ListCall,
) {
  await callOnce(baseUrl, headers, call);
  counter.recording = [];
  try {
    await callOnce(baseUrl, headers, call);
    return counter.recording;
  } finally {
    counter.recording = undefined;
  }
}
