// The JSON of kept chart rows, written once (docs/dashboards.md, "Kept chart answers"). A month's chart
// kept between requests is 19,000 rows; completing them field by field (graphql-jit) and writing them as
// JSON took 19 of the 31 ms of CPU a kept answer cost, for the same bytes every time. So a kept answer's
// list (kept-answers.ts isKeptRows) keeps the JSON it was written as, with the selection that asked for it
// (the operation, the list's response path, the variables, the key), and where each row's JSON starts in
// it: the same list asked for again with the same selection completes nothing, and a patched answer
// (kept-answers.ts originOf) completes only the rows read again and takes the others' JSON from the list
// it patched. A list's JSON is kept as UTF-8 bytes, and the answer written as a RawJson of them: the direct
// path writes the answer in parts around them (raw-json.ts stringifyToParts, http/graphql.ts), yoga's own
// path as one buffer (stringifyToBytes: yoga writes a result with the result's own `stringify`, and takes
// bytes as a body as well as a string). No string of the whole answer is made or encoded.
import type { ExecutionResult, GraphQLResolveInfo, OperationDefinitionNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import { isKeptRows, type Origin, originOf } from "./kept-answers.ts";
import { answerAt, RawJson, responsePath, stringifyToBytes } from "./raw-json.ts";
import type { Viewer } from "./viewer.ts";

/** A list's JSON as written for one selection (the last that asked; another selection writes its own). */
interface ListText {
  selection: string;
  /** `[row,row,…]`, in UTF-8. */
  json: Buffer;
  /**
   * Where each row's JSON starts in `json` (a byte offset), and after the last, where the closing bracket
   * is plus one; found when a patch first needs it (a list read whole is written by one JSON.stringify:
   * 19,000 calls, one a row, took twice as long).
   */
  starts?: Int32Array;
}

const listTexts = new WeakMap<object, ListText>();

/**
 * Where each of the `count` values of a JSON array's UTF-8 bytes starts: after the bracket, and after each
 * comma outside them (a character's bytes past the first are never ASCII, so they are never taken for one).
 */
export function valueStarts(json: Uint8Array, count: number): Int32Array {
  const starts = new Int32Array(count + 1);
  starts[0] = 1;
  let value = 0;
  let depth = 0;
  let inString = false;
  for (let i = 1; i < json.length; i++) {
    const c = json[i];
    if (inString) {
      // A backslash escapes the next character; a quote not escaped ends the string.
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (depth-- === 0) starts[++value] = i + 1; // the array's own closing bracket
    } else if (c === 0x2c && depth === 0) starts[++value] = i + 1;
  }
  return starts;
}

/** A kept list left to this plugin: where it is in the answer, its rows, the selection that asked. */
interface Pending {
  path: (string | number)[];
  rows: object[];
  selection: string;
  /** Its own text for the selection: nothing was completed. */
  own?: ListText;
  /** The list it patched, whose text for the selection gives every row not read again (origin.at ≥ 0). */
  patched?: { origin: Origin; text: ListText };
}

/** The lists of each run's context waiting for the answer. */
const pending = new WeakMap<object, Pending[]>();

/** A number per parsed operation (yoga's parser cache gives the same document for the same text). */
const operationIds = new WeakMap<OperationDefinitionNode, number>();
let operations = 0;

const operationId = (operation: OperationDefinitionNode) => {
  let id = operationIds.get(operation);
  if (id === undefined) operationIds.set(operation, (id = ++operations));
  return id;
};

/**
 * What a list field of kept rows resolves to: the rows whose JSON for this selection is not kept yet
 * (all of them the first time); the answer's list is written from every row's JSON once the run is done
 * (keptJsonAnswers). Rows of an answer that is not kept are returned as they are.
 */
export function rowsToComplete<T extends object>(
  rows: T[],
  context: { viewer: Viewer },
  info: GraphQLResolveInfo,
): T[] {
  if (!isKeptRows(rows)) return rows;
  const path = responsePath(info);
  const selection = JSON.stringify([operationId(info.operation), path, info.variableValues, context.viewer.keyId]);
  let lists = pending.get(context);
  if (!lists) pending.set(context, (lists = []));
  const own = listTexts.get(rows);
  if (own?.selection === selection) {
    lists.push({ path, rows, selection, own });
    return [];
  }
  const origin = originOf(rows);
  const text = origin && listTexts.get(origin.rows);
  if (origin && text?.selection === selection) {
    lists.push({ path, rows, selection, patched: { origin, text } });
    return rows.filter((_, i) => origin.at[i] < 0);
  }
  lists.push({ path, rows, selection });
  return rows;
}

const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");

/**
 * The text of a patched list: each run of rows that follow each other in the list it patched is one slice
 * of that list's JSON (the commas between them with it), the rows read again are `completed`'s JSON. A
 * copy per row (19,000 slices joined) took 11 ms a request; a patch leaves a handful of runs.
 */
function patchedText(selection: string, origin: Origin, before: ListText, completed: unknown[]): ListText {
  const count = origin.at.length;
  const old = (before.starts ??= valueStarts(before.json, origin.rows.length));
  const starts = new Int32Array(count + 1);
  const parts: Buffer[] = [OPEN];
  let at = 1; // where the next row starts
  let next = 0; // the next row completed
  for (let i = 0; i < count; ) {
    if (i) {
      parts.push(COMMA);
      at++;
    }
    const from = origin.at[i];
    let end = i + 1;
    let text: Buffer;
    if (from >= 0) {
      while (end < count && origin.at[end] === from + (end - i)) end++;
      text = before.json.subarray(old[from], old[from + end - i] - 1);
      for (let k = i; k < end; k++) starts[k] = at + old[from + k - i] - old[from];
    } else {
      text = Buffer.from(JSON.stringify(completed[next++]));
      starts[i] = at;
    }
    parts.push(text);
    at += text.length;
    i = end;
  }
  parts.push(CLOSE);
  starts[count] = at + 1;
  return { selection, json: Buffer.concat(parts), starts };
}

/**
 * Writes each pending list of a run: its own text, or one made of the rows completed in this run and
 * the JSON of those it patched, in the rows' order. A list with an error under it is left as completed
 * and keeps nothing: its error paths count the rows completed, which is all of them the first time
 * (stats rows have no field that fails; one that could would need its rows completed every time).
 */
function writeLists(result: ExecutionResult, lists: Pending[]): ExecutionResult {
  let written = false;
  for (const { path, rows, selection, own, patched } of lists) {
    const list = answerAt(result, path);
    if (!Array.isArray(list?.value)) continue;
    let text = own;
    if (!text && patched) text = patchedText(selection, patched.origin, patched.text, list.value);
    text ??= { selection, json: Buffer.from(JSON.stringify(list.value)) };
    listTexts.set(rows, text);
    list.set(new RawJson(text.json));
    written = true;
  }
  // yoga writes a result by its own `stringify` when it has one (graphql-jit's serializers use it too),
  // and makes what it returns the Response's body: bytes are a body as a string is.
  return written ? ({ ...result, stringify: stringifyToBytes } as ExecutionResult) : result;
}

/** The envelop plugin that writes the lists rowsToComplete left for the answer. */
export const keptJsonAnswers: Plugin = {
  onExecute: ({ args }) => ({
    onExecuteDone: ({ result, setResult }) => {
      const lists = pending.get(args.contextValue as object);
      if (!lists || !("data" in result)) return;
      pending.delete(args.contextValue as object);
      setResult(writeLists(result, lists));
    },
  }),
};
