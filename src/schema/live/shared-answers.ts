// Subscriptions with one execution per event and answer class, instead of one per subscriber. An event
// the instance fans out (tail.ts) is one object handed to every subscriber of its tenant; graphql's
// subscribe executes each subscriber's selection for it, so 1,000 subscribers cost 1,000 executions
// (and their garbage) per event, most of the API's time at the bench's rate
// (docs/performance.md#live-subscriptions-at-scale). Here the subscribers whose answer to an event must
// be the same share one execution of it: same answer class, same event object. The answer class is
//   - the operation, printed, and the values of the variables it uses outside the subscription field's
//     own arguments (those — after, the filters — choose which events come, not an event's answer:
//     the field's resolve only passes the event on);
//   - the viewer, every field of it but those that only count and limit (NOT_IN_ANSWERS): tenant, key
//     kind, third party or in-house, facility, contact and roles, so scope and masking are the same.
// Anything a subscriber reads alone (a replay page, its too-slow notice) is its own object, so its
// answer is never shared. The answers hang off the event (a WeakMap) and go when it goes.
import { isAsyncIterable } from "@graphql-tools/utils";
import {
  createSourceEventStream,
  execute,
  getOperationAST,
  GraphQLError,
  Kind,
  print,
  visit,
  type ASTNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
} from "graphql";
import type { Context } from "../core/context.ts";
import type { Viewer } from "../core/viewer.ts";

/**
 * Viewer fields no answer depends on: read when a key is counted, limited or audited, never by a
 * resolver of a read. Every other field, including any added later, is part of the answer class.
 */
const NOT_IN_ANSWERS: ReadonlySet<string> = new Set<keyof Viewer>(["keyId", "rateLimit", "graphqlBudget"]);

/** Variables used anywhere in the document but in the arguments of the operation's root fields. */
function variablesOfAnswers(document: DocumentNode, operationName?: string | null): string[] {
  const names = new Set<string>();
  const collect = (node: ASTNode) => visit(node, { Variable: (v) => void names.add(v.name.value) });
  const operation = getOperationAST(document, operationName);
  for (const definition of document.definitions) if (definition !== operation) collect(definition);
  if (operation) {
    for (const directive of operation.directives ?? []) collect(directive);
    for (const selection of operation.selectionSet.selections) {
      // A root field without its arguments; a fragment at the root is taken whole (only shares less).
      collect(selection.kind === Kind.FIELD ? { ...selection, arguments: [] } : selection);
    }
  }
  return [...names].sort();
}

/** Subscriptions of one answer class get the same result for the same event (undefined: none shares). */
function answerClassOf(args: ExecutionArgs): string | undefined {
  const viewer = (args.contextValue as Partial<Context> | undefined)?.viewer;
  if (!viewer) return undefined; // nobody to share with: every result its own
  const variables = variablesOfAnswers(args.document, args.operationName)
    .map((name) => [name, args.variableValues?.[name]])
    .filter(([, value]) => value !== undefined); // absent and undefined are the same; null is not
  const viewerClass = Object.entries(viewer)
    .filter(([field]) => !NOT_IN_ANSWERS.has(field))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([print(args.document), args.operationName ?? null, variables, viewerClass]);
}

/** Per event object, the result of each answer class that has executed it. */
const answers = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

/** The result for `event` of its answer class: executed by the first subscriber of the class to get there. */
function answerOf(event: unknown, answerClass: string | undefined, run: () => Promise<ExecutionResult>) {
  if (answerClass === undefined || typeof event !== "object" || event === null) return run();
  let byClass = answers.get(event);
  if (!byClass) answers.set(event, (byClass = new Map()));
  let answer = byClass.get(answerClass);
  if (!answer) byClass.set(answerClass, (answer = run()));
  return answer;
}

/** The stream id of the event a result answers (extensions.eventId, SSE `id:`), on results without errors. */
function withEventId(event: unknown, result: ExecutionResult): ExecutionResult {
  const seq = (event as { seq?: unknown } | null)?.seq;
  if (typeof seq !== "number" || result.errors?.length) return result;
  return { ...result, extensions: { ...result.extensions, eventId: String(seq) } };
}

/**
 * graphql's subscribe for the GraphQL server (its subscribe function, both transports): the same
 * source stream (the subscription field's subscribe), each event executed once per answer class.
 * Results are shared objects: whatever comes after must copy a result to change it (yoga and
 * graphql-ws do).
 */
export async function subscribeSharingAnswers(
  args: ExecutionArgs,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!isAsyncIterable(source)) return source;
  const events = source[Symbol.asyncIterator]();
  const answerClass = answerClassOf(args);
  const operation = getOperationAST(args.document, args.operationName);
  const run = (event: unknown) => async () => withEventId(event, await execute({ ...args, rootValue: event }));
  const results: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      let step: IteratorResult<unknown>;
      try {
        step = await events.next();
      } catch (error) {
        // As graphql's own subscribe reports an error of the source stream.
        const cause = error as Error;
        throw new GraphQLError(cause.message, { originalError: cause, nodes: operation ? [operation] : [] });
      }
      if (step.done) return { done: true, value: undefined };
      return { done: false, value: await answerOf(step.value, answerClass, run(step.value)) };
    },
    return: async () => {
      await events.return?.();
      return { done: true, value: undefined };
    },
    throw: async (error: unknown) => {
      await events.return?.();
      throw error;
    },
    [Symbol.asyncIterator]: () => results,
  };
  return results;
}
