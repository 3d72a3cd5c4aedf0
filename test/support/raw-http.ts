// What two instances of the service answered, compared byte for byte by the tests of the direct paths
// (graphql-direct.test.ts, rest-direct.test.ts): the status, the raw headers in order and the body, with
// only what differs between two runs left out (Date; the seconds of a rate-limit window, which tick
// between the two requests of a pair), and the request's log line (comparePair).
import http from "node:http";
import { expect } from "vitest";
import type { TestApp } from "./app.ts";

export interface Answer {
  status: number;
  /** [name, value] as sent, in order; Date left out, the rate limit's seconds replaced. */
  headers: [string, string][];
  body: string;
}

/** Seconds until the rate-limit window moves on: they tick between the two requests of a pair. */
const SECONDS_HEADERS = new Set(["ratelimit-reset", "retry-after"]);

const seconds = (value: string) => (/^\d+$/.test(value) ? "<seconds>" : `not a number of seconds: ${value}`);

export function rawRequest(
  url: string,
  options: { method: string; headers: Record<string, string>; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: options.method, headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const raw = response.rawHeaders;
        const pairs: [string, string][] = [];
        for (let i = 0; i < raw.length; i += 2) {
          const name = raw[i].toLowerCase();
          if (name === "date") continue;
          pairs.push([raw[i], SECONDS_HEADERS.has(name) ? seconds(raw[i + 1]) : raw[i + 1]]);
        }
        const text = Buffer.concat(chunks)
          .toString("utf8")
          .replace(/retry after \d+ s/g, (m) => m.replace(/\d+/, seconds));
        resolve({ status: response.statusCode!, headers: pairs, body: text });
      });
    });
    request.on("error", reject);
    request.end(options.body);
  });
}

/**
 * The request's log line (written when the response closes, which can be just after the client has
 * read it) without what differs between two runs: time, duration, process.
 */
async function logLine(app: TestApp, traceId: string) {
  const find = () => app.logs.find((l) => l.msg === "request" && l.traceId === traceId);
  for (let waited = 0; !find() && waited < 2_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(find(), `log line of ${traceId}`).toBeDefined();
  const { time, ms, pid, hostname, ...rest } = find()!;
  return rest;
}

/**
 * One request of an equivalence corpus, sent to the instance as deployed (`direct`) and to the one
 * forced through the library's own path (`reference`): every difference in status, raw headers, body
 * or log line is recorded in `mismatches`, as is a wrong path (the log line's `flag` must be true
 * exactly when the case says the direct path answers, and `also`'s flag when it says so) or an answer
 * other than the case expects.
 */
async function comparePair(c: {
  name: string;
  traceId: string;
  direct: TestApp;
  reference: TestApp;
  send: (app: TestApp) => Promise<Answer>;
  flag: string;
  expectDirect: boolean;
  /** A second flag only the direct instance's log line has, true exactly when `expected`. */
  also?: { flag: string; expected: boolean };
  status: number;
  about: RegExp;
  mismatches: string[];
}): Promise<void> {
  const viaDirect = await c.send(c.direct);
  const viaReference = await c.send(c.reference);
  const logged = { direct: await logLine(c.direct, c.traceId), reference: await logLine(c.reference, c.traceId) };
  const { [c.flag]: flagged, ...directLogged } = logged.direct;
  const alsoFlagged = c.also && directLogged[c.also.flag];
  if (c.also) delete directLogged[c.also.flag];
  const check = (what: string, ok: boolean, detail: unknown) =>
    ok || c.mismatches.push(`${c.name}: ${what} ${JSON.stringify(detail)}`);
  check("status", viaDirect.status === viaReference.status, [viaDirect.status, viaReference.status]);
  check("headers", JSON.stringify(viaDirect.headers) === JSON.stringify(viaReference.headers), {
    direct: viaDirect.headers,
    reference: viaReference.headers,
  });
  check("body", viaDirect.body === viaReference.body, {
    direct: viaDirect.body.slice(0, 600),
    reference: viaReference.body.slice(0, 600),
  });
  check("log line", JSON.stringify(directLogged) === JSON.stringify(logged.reference), logged);
  check("path", (flagged === true) === c.expectDirect && !(c.flag in logged.reference), {
    [c.flag]: flagged,
    expected: c.expectDirect,
  });
  if (c.also)
    check(c.also.flag, (alsoFlagged === true) === c.also.expected && !(c.also.flag in logged.reference), {
      [c.also.flag]: alsoFlagged,
      expected: c.also.expected,
    });
  check("answer", viaReference.status === c.status && c.about.test(viaReference.body), {
    status: viaReference.status,
    body: viaReference.body.slice(0, 300),
  });
}

/** What comparePair needs of a corpus case: its name and what the answer must be. */
interface CorpusCase {
  name: string;
  status: number;
  about: RegExp;
}

/**
 * Every case of an equivalence corpus through comparePair, each with the trace id `<prefix>-<index>`;
 * the mismatches of them all (the test expects none).
 */
export async function compareCorpus<C extends CorpusCase>(c: {
  cases: C[];
  prefix: string;
  direct: TestApp;
  reference: TestApp;
  send: (app: TestApp, item: C, traceId: string) => Promise<Answer>;
  flag: string;
  expectDirect: (item: C) => boolean;
  also?: { flag: string; expected: (item: C) => boolean };
}): Promise<string[]> {
  const mismatches: string[] = [];
  for (const [i, item] of c.cases.entries()) {
    const traceId = `${c.prefix}-${i}`;
    await comparePair({
      name: item.name,
      traceId,
      direct: c.direct,
      reference: c.reference,
      send: (app) => c.send(app, item, traceId),
      flag: c.flag,
      expectDirect: c.expectDirect(item),
      also: c.also && { flag: c.also.flag, expected: c.also.expected(item) },
      status: item.status,
      about: item.about,
      mismatches,
    });
  }
  return mismatches;
}
