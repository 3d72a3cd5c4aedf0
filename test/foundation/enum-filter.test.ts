// The one check of an enum-valued list filter (src/schema/core/list.ts enumFilter), which every list
// over a database enum uses (statuses, reading modes): a value outside the enum is a 400 naming the
// field and the values, not a failed query.
import { describe, expect, it } from "vitest";
import { enumFilter } from "../../src/schema/core/list.ts";

const check = enumFilter("status", ["draft", "pending"]);

describe("enumFilter", () => {
  it("passes the filter on when every value is known (lists and comma lists alike) or none is given", () => {
    for (const filter of [{ status: "draft" }, { status: " draft,pending " }, { status: ["pending"] }, {}, null]) {
      expect(check(filter)).toBe(filter);
    }
  });

  it("refuses unknown values, naming the field, the values it takes and the ones given", () => {
    expect(() => check({ status: "draft,paid, sent" })).toThrow(
      "filter status expects one of draft, pending, got paid, sent",
    );
    expect(() => check({ status: ["Draft"] })).toThrow(expect.objectContaining({ status: 400 }));
  });
});
