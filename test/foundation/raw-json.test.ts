// JSON text written by PostgreSQL (core/raw-json.ts): REST writes it in place, JSON.stringify reads it as its value.
import { describe, expect, it } from "vitest";
import { RawJson, stringify } from "../../src/schema/core/raw-json.ts";

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

  it("leaves an answer without one as JSON.stringify writes it", () => {
    const plain = { a: "x\u0000y", b: [1, { c: null }] };
    expect(stringify(plain)).toBe(JSON.stringify(plain));
  });
});
