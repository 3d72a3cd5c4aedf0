// A JSON value written by PostgreSQL as text (docs/performance.md, "Lists at scale"): a REST answer that
// holds one is written by `stringify`, which puts the text in place unchanged, so 20,000 count_by groups
// are neither parsed into rows nor written again; anywhere else (a GraphQL answer, SOFA's own path) it
// is the value it holds, since JSON.stringify calls toJSON.
import crypto from "node:crypto";

/** Stands in for a RawJson's text while `stringify` runs: a string no answer holds (a NUL and this process's nonce). */
const MARK = `\u0000raw-json:${crypto.randomUUID()}:`;
const MARKED = new RegExp(`"${JSON.stringify(MARK).slice(1, -1).replaceAll("\\", "\\\\")}(\\d+)"`, "g");

/** The texts `stringify` is collecting, while it runs. */
let collecting: string[] | undefined;

export class RawJson<T = unknown> {
  constructor(readonly text: string) {}

  toJSON(): T {
    if (!collecting) return JSON.parse(this.text);
    collecting.push(this.text);
    // Only `stringify` sees the mark, and replaces it before anyone reads the text.
    return `${MARK}${collecting.length - 1}` as T;
  }
}

/** JSON.stringify, with each RawJson's text put in place as it is. */
export function stringify(value: unknown): string {
  const texts: string[] = [];
  collecting = texts;
  let json: string;
  try {
    json = JSON.stringify(value);
  } finally {
    collecting = undefined;
  }
  return texts.length ? json.replace(MARKED, (_, i: string) => texts[Number(i)]) : json;
}
