// Where each value of a kept list's JSON (its UTF-8 bytes) starts (src/schema/core/kept-json.ts valueStarts): a patched
// chart takes the rows it did not read again from the JSON the list was written as, so every row must be
// cut exactly, whatever its strings hold (quotes, backslashes, commas, brackets, other scripts).
import { describe, expect, it } from "vitest";
import { valueStarts } from "../../src/schema/core/kept-json.ts";

const TRICKY = ['Store 1" ] east, {wing \\', "\\", '"', "[", "}", ",", 'a\\"b', "naïve – ünïcode ✓", "\n\t", ""];

describe("valueStarts", () => {
  it("cuts a JSON array into its values, whatever their strings hold", () => {
    const values = [
      ...TRICKY.map((name, i) => ({
        status: "Unassigned",
        location: { id: i, name },
        count: i,
        tags: [name, { n: name }],
      })),
      null,
      { empty: {}, list: [] },
    ];
    const json = Buffer.from(JSON.stringify(values));
    const starts = valueStarts(json, values.length);
    const cut = values.map((_, i) => JSON.parse(json.subarray(starts[i], starts[i + 1] - 1).toString()));
    expect(cut).toEqual(values);
    expect(starts[values.length]).toBe(json.length);
  });

  it("finds nothing to cut in an empty array", () => {
    expect([...valueStarts(Buffer.from("[]"), 0)]).toEqual([1]);
  });
});
