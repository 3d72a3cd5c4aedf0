// The bit functions of the search bitmaps (src/schema/work-orders/search/sql/bits.sql) on hand-made
// ordinals, against bits computed here: work_order_search_bits (ordinals → one bit string per chunk)
// and work_order_search_ordinals (a chunk's bits → its ordinals), at the edges of words and chunks.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHUNK_BITS } from "../../src/schema/work-orders/search/terms.ts";
import { createTestDatabase } from "../support/databases.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await database?.drop();
});

/** The expected chunks: for each chunk an ordinal falls in, CHUNK_BITS characters, '1' where one is. */
function expectedBits(ordinals: number[]): Record<number, string> {
  const chunks: Record<number, string[]> = {};
  for (const ordinal of ordinals) {
    const chunk = Math.floor(ordinal / CHUNK_BITS);
    chunks[chunk] ??= Array.from({ length: CHUNK_BITS }, () => "0");
    chunks[chunk][ordinal % CHUNK_BITS] = "1";
  }
  return Object.fromEntries(Object.entries(chunks).map(([chunk, bits]) => [chunk, bits.join("")]));
}

async function bitsOf(ordinals: number[] | null): Promise<Record<number, string>> {
  const { rows } = await client.query<{ chunk: number; bits: string }>(
    "SELECT chunk, bits::text AS bits FROM work_order_search_bits($1::int[]) ORDER BY chunk",
    [ordinals],
  );
  return Object.fromEntries(rows.map((r) => [r.chunk, r.bits]));
}

async function ordinalsOf(chunk: number, bits: string | null): Promise<number[]> {
  const { rows } = await client.query<{ o: number }>("SELECT work_order_search_ordinals($1, $2::varbit) AS o", [
    chunk,
    bits,
  ]);
  return rows.map((r) => r.o);
}

const sorted = (values: number[]) => [...new Set(values)].sort((a, b) => a - b);

const CASES: Record<string, number[]> = {
  "the first ordinal": [0],
  "the last ordinal of the first chunk": [CHUNK_BITS - 1],
  "the first ordinal of the second chunk": [CHUNK_BITS],
  "both sides of a chunk boundary": [CHUNK_BITS - 1, CHUNK_BITS],
  "both sides of a 64-bit word and of a byte": [7, 8, 63, 64, 65, 127, 128],
  "unordered, with duplicates": [200, 3, 200, 3, 9000, 1],
  "a chunk far away, none between": [5, 10 * CHUNK_BITS + 17],
  "every ordinal of one chunk": Array.from({ length: CHUNK_BITS }, (_, i) => CHUNK_BITS + i),
};

describe("work_order_search_bits", () => {
  it("gives no chunk for no ordinals (an empty array or null)", async () => {
    expect(await bitsOf([])).toEqual({});
    expect(await bitsOf(null)).toEqual({});
  });

  for (const [name, ordinals] of Object.entries(CASES)) {
    it(`sets exactly the ordinals' bits: ${name}`, async () => {
      const bits = await bitsOf(ordinals);
      expect(bits).toEqual(expectedBits(ordinals));
      for (const chunk of Object.values(bits)) expect(chunk).toHaveLength(CHUNK_BITS);
    });
  }
});

describe("work_order_search_ordinals", () => {
  it("gives nothing for a chunk of zeros, or null bits", async () => {
    expect(await ordinalsOf(0, "0".repeat(CHUNK_BITS))).toEqual([]);
    expect(await ordinalsOf(3, null)).toEqual([]);
  });

  it("reads a bit as chunk × CHUNK_BITS + its position from the left", async () => {
    const bits = `${"0".repeat(5)}1${"0".repeat(CHUNK_BITS - 7)}1`;
    expect(sorted(await ordinalsOf(2, bits))).toEqual([2 * CHUNK_BITS + 5, 3 * CHUNK_BITS - 1]);
  });

  for (const [name, ordinals] of Object.entries(CASES)) {
    it(`decodes what work_order_search_bits encodes: ${name}`, async () => {
      const decoded: number[] = [];
      for (const [chunk, bits] of Object.entries(await bitsOf(ordinals)))
        decoded.push(...(await ordinalsOf(Number(chunk), bits)));
      expect(sorted(decoded)).toEqual(sorted(ordinals));
    });
  }
});
