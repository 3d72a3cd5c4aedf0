// JSON text written by PostgreSQL, or kept as bytes (core/raw-json.ts): REST and GraphQL write it in place,
// JSON.stringify reads it as its value.
import { describe, expect, it } from "vitest";
import type { ExecutionResult, GraphQLResolveInfo } from "graphql";
import {
  RawJson,
  stringify,
  stringifyToBytes,
  stringifyToParts,
  textAnswers,
  writeAsText,
  writesText,
} from "../../src/schema/core/raw-json.ts";

describe("RawJson", () => {
  const groups = '[{"value":3,"count":2},{"value":null,"count":1}]';
  const answer = {
    type: "count",
    data: new RawJson(groups),
    status: "ok",
    also: [new RawJson("true"), "\u0000raw-json:"],
  };

  it("is written in place by stringify, byte for byte, wherever it sits", () => {
    expect(stringify(answer)).toBe(
      `{"type":"count","data":${groups},"status":"ok","also":[true,${JSON.stringify("\u0000raw-json:")}]}`,
    );
  });

  it("is the value it holds for JSON.stringify, and after stringify has run", () => {
    const expected = JSON.stringify({ ...answer, data: JSON.parse(groups), also: [true, "\u0000raw-json:"] });
    expect(JSON.stringify(answer)).toBe(expected);
    stringify(answer);
    expect(JSON.stringify(answer)).toBe(expected);
  });

  it("is written in place as UTF-8 bytes by stringifyToBytes, kept as text or as bytes", () => {
    const named = '[{"name":"naïve – ✓ \\"q\\""}]';
    const bytes = { ...answer, kept: new RawJson(Buffer.from(named)), tail: "é" };
    const written = stringifyToBytes(bytes);
    expect(written.toString()).toBe(stringify(bytes));
    expect(JSON.parse(written.toString()).kept).toEqual(JSON.parse(named));
    expect(stringifyToBytes({ a: "ü" })).toEqual(Buffer.from('{"a":"ü"}'));
    // In parts, the kept bytes are the very buffer (not a copy).
    const kept = Buffer.from(named);
    expect(stringifyToParts({ x: new RawJson(kept) })).toContain(kept);
    // JSON.stringify reads bytes as the value they hold too (a websocket message).
    expect(JSON.parse(JSON.stringify(bytes)).kept).toEqual(JSON.parse(named));
  });

  it("leaves an answer without one as JSON.stringify writes it", () => {
    const plain = { a: "x\u0000y", b: [1, { c: null }] };
    expect(stringify(plain)).toBe(JSON.stringify(plain));
  });
});

describe("textAnswers", () => {
  // The envelop hooks as yoga runs them for one execution.
  const run = (context: object) =>
    (textAnswers as { onExecute: (x: unknown) => { onExecuteDone: (x: unknown) => void } }).onExecute({
      args: { contextValue: context },
    });
  const info = { path: { prev: undefined, key: "page", typename: "Query" } } as unknown as GraphQLResolveInfo;

  it("puts a list's text in the answer in place of what the field completed to, during its run only", () => {
    const context = {};
    expect(writesText(context)).toBe(false); // REST's SOFA, jobs: values are completed
    const { onExecuteDone } = run(context);
    expect(writesText(context)).toBe(true);
    writeAsText(context, info, "edges", '[{"node":{"id":1,"title":"a \\"b\\""}}]');
    let answer: ExecutionResult | undefined;
    onExecuteDone({
      result: { data: { page: { total: 2, edges: [] } } },
      setResult: (r: ExecutionResult) => (answer = r),
    });
    const write = (answer as { stringify: (v: unknown) => string }).stringify;
    expect(write(answer)).toBe('{"data":{"page":{"total":2,"edges":[{"node":{"id":1,"title":"a \\"b\\""}}]}}}');
    // A resolver still running after an error ended the run writes into no answer, and does not throw.
    expect(writesText(context)).toBe(false);
    expect(() => writeAsText(context, info, "edges", "[]")).not.toThrow();
  });

  it("leaves a list with an error under it as completed", () => {
    const context = {};
    const { onExecuteDone } = run(context);
    writeAsText(context, info, "edges", "[]");
    const result = { data: { page: { edges: [null] } }, errors: [{ message: "x", path: ["page", "edges", 0] }] };
    let answer: ExecutionResult | undefined;
    onExecuteDone({ result, setResult: (r: ExecutionResult) => (answer = r) });
    expect(answer).toBeUndefined();
    expect(result.data.page.edges).toEqual([null]);
  });
});
