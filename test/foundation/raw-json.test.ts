// JSON text written by PostgreSQL, or kept as bytes (core/raw-json.ts): REST and GraphQL write it in place,
// JSON.stringify reads it as its value.
import { describe, expect, it } from "vitest";
import { RawJson, stringify, stringifyToBytes, stringifyToParts } from "../../src/schema/core/raw-json.ts";

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
