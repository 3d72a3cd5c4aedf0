// The JSON of kept chart rows, written once (docs/dashboards.md, "Kept chart answers"). A month's chart
// kept between requests is 19,000 rows; completing them field by field (graphql-jit) and writing them as
// JSON took 19 of the 31 ms of CPU a kept answer cost, for the same bytes every time. So each row of a
// kept answer (kept-answers.ts isKeptRows) keeps the JSON its completion wrote, with the selection that
// asked for it (the operation, the list's response path, the variables, the key): a later request with
// the same selection completes only the rows without it (the new groups of a patched answer) and the
// list is written from the rows' texts in their order, as a RawJson that raw-json.ts's stringify puts in
// place (yoga writes a result with the result's own `stringify`).
import type { ExecutionResult, GraphQLResolveInfo, OperationDefinitionNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import { isKeptRows } from "./kept-answers.ts";
import { RawJson, stringify } from "./raw-json.ts";
import type { Viewer } from "./viewer.ts";

/** JSON as completed for one selection (the last that asked; another selection writes its own). */
interface Text {
  selection: string;
  text: string;
}

/**
 * A row's JSON, on the row itself: a symbol-keyed property is read in nanoseconds where a WeakMap took
 * 200 (19,000 rows a request), and JSON.stringify never writes it.
 */
const TEXT = Symbol("the row's JSON");
type Row = { [TEXT]?: Text };

/** A whole list's JSON, for a kept answer given again unchanged. */
const listTexts = new WeakMap<object, Text>();

/** A kept list left to this plugin: where it is in the answer, its rows, the selection that asked. */
interface Pending {
  path: (string | number)[];
  rows: Row[];
  selection: string;
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

/** The response path of the field being resolved, from the root. */
function responsePath(info: GraphQLResolveInfo): (string | number)[] {
  const keys: (string | number)[] = [];
  for (let at: GraphQLResolveInfo["path"] | undefined = info.path; at; at = at.prev) keys.unshift(at.key);
  return keys;
}

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
  lists.push({ path, rows, selection });
  if (listTexts.get(rows)?.selection === selection) return [];
  return rows.filter((row) => (row as Row)[TEXT]?.selection !== selection);
}

/** The value at `path` in `data`, and a setter for it; undefined when a parent was nulled (an error). */
function at(data: unknown, path: (string | number)[]) {
  let parent = data as Record<string | number, unknown> | null | undefined;
  for (const key of path.slice(0, -1)) parent = parent?.[key] as typeof parent;
  const last = path[path.length - 1];
  return parent ? { value: parent[last], set: (v: unknown) => (parent[last] = v) } : undefined;
}

/**
 * Writes each pending list of a run: a row completed in this run keeps its JSON, a row completed before
 * gives its kept JSON, in the rows' order. A list with an error under it is left as completed and keeps
 * nothing (the error's path counts the completed rows only; stats rows have no field that fails).
 */
function writeLists(result: ExecutionResult, lists: Pending[]): ExecutionResult {
  let written = false;
  for (const { path, rows, selection } of lists) {
    const list = at(result.data, path);
    if (!Array.isArray(list?.value)) continue;
    const failed = result.errors?.some((e) => path.every((key, i) => e.path?.[i] === key));
    if (failed) continue;
    let whole = listTexts.get(rows);
    if (whole?.selection !== selection) {
      const completed = list.value;
      let next = 0;
      const texts = rows.map((row) => {
        if (row[TEXT]?.selection === selection) return row[TEXT].text;
        row[TEXT] = { selection, text: JSON.stringify(completed[next++]) };
        return row[TEXT].text;
      });
      listTexts.set(rows, (whole = { selection, text: `[${texts.join(",")}]` }));
    }
    list.set(new RawJson(whole.text));
    written = true;
  }
  // yoga writes a result by its own `stringify` when it has one (graphql-jit's serializers use it too).
  return written ? ({ ...result, stringify } as ExecutionResult) : result;
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
