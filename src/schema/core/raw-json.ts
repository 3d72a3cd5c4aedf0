// A JSON value written by PostgreSQL as text (docs/performance.md, "Lists at scale"), or kept as UTF-8
// bytes (a kept chart's rows, kept-json.ts): an answer that holds one is written by `stringify` or
// `stringifyToBytes`, which put it in place unchanged, so 20,000 count_by groups are neither parsed into
// rows nor written again; anywhere else (a GraphQL answer without kept rows, a websocket message, SOFA's
// own path) it is the value it holds, since JSON.stringify calls toJSON.
import crypto from "node:crypto";

/** Stands in for a RawJson's text while `marked` runs: a string no answer holds (a NUL and this process's nonce). */
const MARK = `\u0000raw-json:${crypto.randomUUID()}:`;
const MARKED = new RegExp(`"${JSON.stringify(MARK).slice(1, -1).replaceAll("\\", "\\\\")}(\\d+)"`, "g");

/** The texts `marked` is collecting, while it runs. */
let collecting: (string | Buffer)[] | undefined;

export class RawJson<T = unknown> {
  constructor(readonly text: string | Buffer) {}

  toJSON(): T {
    if (!collecting) return JSON.parse(this.text.toString());
    collecting.push(this.text);
    // Only `marked`'s callers see the mark, and replace it before anyone reads the text.
    return `${MARK}${collecting.length - 1}` as T;
  }
}

/** JSON.stringify of `value` with a mark in place of each RawJson, and their texts by the mark's number. */
function marked(value: unknown): { json: string; texts: (string | Buffer)[] } {
  const texts: (string | Buffer)[] = [];
  collecting = texts;
  try {
    return { json: JSON.stringify(value), texts };
  } finally {
    collecting = undefined;
  }
}

/** JSON.stringify, with each RawJson's text put in place as it is. */
export function stringify(value: unknown): string {
  const { json, texts } = marked(value);
  return texts.length ? json.replace(MARKED, (_, i: string) => texts[Number(i)].toString()) : json;
}

/**
 * The same JSON as UTF-8 bytes, in parts: the text around each RawJson, and each RawJson's bytes as they
 * are (the direct GraphQL path writes them so: a kept chart's 2.5 MB are not copied for each request).
 */
export function stringifyToParts(value: unknown): Buffer[] {
  const { json, texts } = marked(value);
  if (!texts.length) return [Buffer.from(json)];
  const parts: Buffer[] = [];
  let from = 0;
  for (const mark of json.matchAll(MARKED)) {
    const text = texts[Number(mark[1])];
    parts.push(Buffer.from(json.slice(from, mark.index)), typeof text === "string" ? Buffer.from(text) : text);
    from = mark.index + mark[0].length;
  }
  parts.push(Buffer.from(json.slice(from)));
  return parts;
}

/**
 * The same JSON as UTF-8 bytes in one buffer. For an answer around a kept chart's 2.5 MB of rows: the
 * answer made as one string (a replace) and encoded when written cost 20 ms a request.
 */
export const stringifyToBytes = (value: unknown): Buffer => Buffer.concat(stringifyToParts(value));
