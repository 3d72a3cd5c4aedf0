// A JSON value written by PostgreSQL as text (docs/performance.md, "Lists at scale"), or kept as UTF-8
// bytes (a kept chart's rows, kept-json.ts): an answer that holds one is written by `stringify` or
// `stringifyToBytes`, which put it in place unchanged, so 20,000 count_by groups are neither parsed into
// rows nor written again; anywhere else (a GraphQL answer without kept rows, a websocket message, SOFA's
// own path) it is the value it holds, since JSON.stringify calls toJSON. Also the yoga plugin through which
// a resolver hands a list's text to a GraphQL answer (writeAsText, textAnswers: statement-answers.ts).
import crypto from "node:crypto";
import type { ExecutionResult, GraphQLResolveInfo } from "graphql";
import type { Plugin } from "graphql-yoga";

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

/** The response path of the field being resolved, from the root. */
export function responsePath(info: GraphQLResolveInfo): (string | number)[] {
  const keys: (string | number)[] = [];
  for (let at: GraphQLResolveInfo["path"] | undefined = info.path; at; at = at.prev) keys.unshift(at.key);
  return keys;
}

/**
 * The value at `path` in a result's data, and a setter for it; undefined when a parent was nulled or an
 * error was raised under it (its error paths count what was completed there, so it stays as completed).
 */
export function answerAt(result: ExecutionResult, path: (string | number)[]) {
  if (result.errors?.some((e) => path.every((key, i) => e.path?.[i] === key))) return undefined;
  let parent = result.data as Record<string | number, unknown> | null | undefined;
  for (const key of path.slice(0, -1)) parent = parent?.[key] as typeof parent;
  const last = path[path.length - 1];
  return parent ? { value: parent[last], set: (v: unknown) => (parent[last] = v) } : undefined;
}

/** Per run's context: the values written as text (writeAsText), by response path. */
const texts = new WeakMap<object, { path: (string | number)[]; text: string }[]>();

/**
 * Whether a resolver may leave its value's JSON to `writeAsText`: only in a run of GraphQL's own
 * execution (yoga's, direct or not), whose `textAnswers` plugin puts the text in place; REST's SOFA and
 * other callers complete values.
 */
export const writesText = (context: object): boolean => texts.has(context);

/**
 * Puts `text` (JSON exactly as GraphQL would write the value: statement-answers.ts checks it) in the
 * answer at the field of `info`, in place of what the field completes to (the resolver returns an empty
 * list or object): nothing is parsed, completed or written again.
 */
export function writeAsText(context: object, info: GraphQLResolveInfo, key: string, text: string): void {
  // None once the run is done: a resolver still running after an error ended it writes into no answer.
  texts.get(context)?.push({ path: [...responsePath(info), key], text });
}

/** The envelop plugin that puts writeAsText's texts in place, and has the answer written by `stringify`. */
export const textAnswers: Plugin = {
  onExecute: ({ args }) => {
    const context = args.contextValue as object;
    texts.set(context, []);
    return {
      onExecuteDone: ({ result, setResult }) => {
        const written = texts.get(context);
        texts.delete(context);
        if (!written?.length || !("data" in result)) return;
        let placed = false;
        for (const { path, text } of written) {
          const place = answerAt(result, path);
          if (!place || place.value == null) continue;
          place.set(new RawJson(text));
          placed = true;
        }
        // In place of graphql-jit's (JSON.stringify); a kept chart's stringifyToBytes writes these as well.
        const asBytes = (result as { stringify?: unknown }).stringify === stringifyToBytes;
        if (placed && !asBytes) setResult({ ...result, stringify } as ExecutionResult);
      },
    };
  },
};
