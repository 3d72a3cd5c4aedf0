// Search, part 3 of 3: ANSWERS a buyer's search from the bitmap postings, the fast path. (Part 1,
// vector.ts, writes the vectors; part 2, ../jobs.ts, indexes them; ../rules/list.ts chooses this path or
// the GIN path; docs/work-order-search.md "Bitmap postings".)
//
// A search is counted with one AND/OR per chunk of ordinals and bit_count, whatever its breadth, instead
// of one heap visit per match. The bitmaps hold what the indexer last indexed; work orders changed since
// then are in the pending table and are read from their live rows, so answers are exact at every moment.
//
// The search text keeps its meaning: each word and phrase becomes the same lexemes text-query.ts's
// tsquery would match, looked up in the company's term dictionary. What this path cannot answer exactly
// and fast (reference numbers the parser splits, filters other than status, long phrases with many
// candidates, a supplier's scope, a large backlog of pending work orders) returns null and list.ts
// answers on the GIN path, with the same results.
import { Prisma, sqlRows } from "../../../db.ts";
import type { Context } from "../../core/context.ts";
import { groupsJsonAggregate } from "../../core/count-by.ts";
import { RawJson } from "../../core/raw-json.ts";
import { CHUNK_BITS, FACETS, GROUP_FACETS, ORDINAL_BLOCK, TERM } from "./terms.ts";

const sql = Prisma.sql;
type Sql = Prisma.Sql;

/** The chunk size as a literal in the statements (integer arithmetic, as in the SQL functions). */
const CHUNK = Prisma.raw(String(CHUNK_BITS));

/** Matches up to this many may be paged by decoding their ordinals; more only by walking a sort (docPageSql). */
const DECODE_LIMIT = 20_000;
/**
 * The page walks the docs in its order when that is expected to test at most WALK_ROWS rows plus
 * WALKED_PER_MATCH per match, else decodes the matches: a walked row costs about a tenth of a decoded
 * match, and decoding a company's chunks about WALK_ROWS walked rows (docs/work-order-search.md, the
 * page). A deep page of a few thousand matches is decoded: walking to it would test millions of rows.
 */
const WALK_ROWS = 10_000;
const WALKED_PER_MATCH = 10;
/** Candidates that must be confirmed (a phrase's pairs) are read, every row, up to this many. */
const SORT_LIMIT = 20_000;
/**
 * A phrase whose pairs give more candidates than this asks for its triples (the indexer builds them):
 * confirming 1,500 rows costs about what a triple's bitmap does, 16,000 rows 200 ms a request. Its own
 * figure, not DECODE_LIMIT's: when that rose to 20,000 for paging, phrases of up to 20,000 candidates
 * stopped asking and were confirmed row by row on every request.
 */
const TRIPLE_CANDIDATES = 1_500;
/** Work orders in rare (GIN-only) terms one search may read through the GIN index. */
const RARE_LIMIT = 10_000;
/** Dictionary terms one search may expand to (a short prefix of a big vocabulary goes to GIN). */
const TERM_LIMIT = 400;
/**
 * A query the dictionary puts under this many matches reads their rows on the GIN path instead of the
 * bits (count_by always; a list when it has no search text): a few locations' 1,572 rows are grouped
 * through the column's index in 3 ms, where building and ANDing their rare terms' bits took 23 ms.
 */
const FEW_MATCHES = 2_000;
/** Pending work orders of a company past which the live-row correction costs more than the GIN path. */
const PENDING_LIMIT = 2_000;

/** The company's pending work orders, counted up to one past PENDING_LIMIT (an int expression). */
const pendingUpToLimit = (companyId: number) =>
  sql`(SELECT count(*) FROM (SELECT 1 FROM "WorkOrderSearchPending" WHERE "buyerCompanyId" = ${companyId} LIMIT ${PENDING_LIMIT + 1}) x)::int`;

/** The company's pending work orders (the `pending` CTE) whose live rows match the query: what every count adds back. */
const pendingMatching = (query: BitmapQuery) =>
  sql`(SELECT count(*) FROM pending p JOIN "WorkOrder" w ON w.id = p.id WHERE ${query.where})`;

/** `n` as an int, or null when the company has more pending work orders than the live-row correction should read. */
const unlessBacklog = (companyId: number, n: Sql) =>
  sql`CASE WHEN ${pendingUpToLimit(companyId)} > ${PENDING_LIMIT} THEN NULL ELSE (${n})::int END`;

/** Lexemes with a digit have no terms (work_order_search_terms): searches for them take the GIN path. */
const DIGIT = /[0-9]/;

/** One dictionary lookup: an exact term or every term starting with it. */
interface Pattern {
  term: string;
  prefix: boolean;
}
/** Term sets ANDed (a phrase's pairs); a group ORs its alternatives; the search ANDs its groups. */
type Alternative = Pattern[];
type Group = Alternative[];

/** A group's alternative before the dictionary is read: a phrase of three lexemes or more has two readings. */
interface PlannedAlternative {
  /** The lexeme, the words' terms, or the phrase's pairs. */
  patterns: Pattern[];
  /** The patterns give candidates only (the pairs of a phrase of three lexemes or more). */
  confirm: boolean;
  /** The phrase's triples (migration 20261207090000_search_phrases_and_pages): used instead of its pairs once all are built. */
  triples?: Pattern[];
}

export interface BitmapQuery {
  companyId: number;
  search: string;
  words: string[];
  phrases: string[];
  statuses: string[] | undefined;
  /** Facet filters (terms.ts FACETS): each column's values, any of them. */
  facets: { column: keyof typeof FACETS; values: number[] }[];
  /** The full WHERE of the GIN path (scope, filters, search) over `"WorkOrder" w`: pending rows are read with it. */
  where: Sql;
  order: Sql;
  /** The page's order as the docs' sort indexes walk it (every sort_by; createdAt desc when none). */
  walk: Walk;
  /** A created window, the list's only filter (docsPage): a range of the docs' createdAt. */
  created?: { from?: Date; to?: Date };
  skip: number;
  take: number;
}

interface Analysis {
  words: { whole: boolean; lexeme: string; stem: string | null }[];
  phrases: { english: string; simple: string }[];
}

/** A phrase's tsquery as written by PostgreSQL: `'a'`, `'a' <-> 'b'`, `'a' <2> 'b' <-> 'c'` … (null: another shape). */
function chainOf(tsquery: string): { lexemes: string[]; gaps: number[] } | null {
  if (tsquery === "") return { lexemes: [], gaps: [] };
  const token = /'((?:[^'\\]|'')*)'|<(-|\d+)>/g;
  const lexemes: string[] = [];
  const gaps: number[] = [];
  let rest = tsquery;
  for (const match of tsquery.matchAll(token)) {
    if (match[1] !== undefined) lexemes.push(match[1].replaceAll("''", "'"));
    else gaps.push(match[2] === "-" ? 1 : Number(match[2]));
    rest = rest.replace(match[0], "");
  }
  return rest.trim() === "" && gaps.length === lexemes.length - 1 ? { lexemes, gaps } : null;
}

/**
 * A phrase's reading under one configuration: one lexeme, its pair (two lexemes), or for three lexemes
 * or more its pairs, which do not prove the lexemes are in one run (matches are confirmed), and its
 * triples, which decide a phrase of three exactly (longer ones are confirmed too).
 */
function phraseAlternative(chain: { lexemes: string[]; gaps: number[] }): PlannedAlternative | null {
  const { lexemes, gaps } = chain;
  if (lexemes.length === 1) return { patterns: [{ term: `${TERM.word}${lexemes[0]}`, prefix: false }], confirm: false };
  if (gaps.some((gap) => gap > 2)) return null;
  const pairs = gaps.map((gap, i) => ({
    term: `${gap === 1 ? TERM.pair : TERM.gapPair}${lexemes[i]} ${lexemes[i + 1]}`,
    prefix: false,
  }));
  if (pairs.length === 1) return { patterns: pairs, confirm: false };
  const triples = gaps.slice(1).map((gap, i) => ({
    term: `${TERM.triple}${gaps[i]}${gap}${lexemes[i]} ${lexemes[i + 1]} ${lexemes[i + 2]}`,
    prefix: false,
  }));
  return { patterns: pairs, confirm: true, triples };
}

/** The search's groups (null: not expressible here). */
function groupsOf(analysis: Analysis, query: BitmapQuery): PlannedAlternative[][] | null {
  const groups: PlannedAlternative[][] = [];
  const exact = (patterns: Pattern[]) => ({ patterns, confirm: false });
  for (const word of analysis.words) {
    // Reference numbers (split by the parser, or with a digit: not in the bitmaps' terms) take the GIN path.
    if (!word.whole || DIGIT.test(word.lexeme)) return null;
    if (word.stem === null) continue; // a stop word is in no vector: it drops out, as in text-query.ts
    const typed: Group =
      [...word.lexeme].length > 2
        ? [
            [{ term: `${TERM.word}${word.lexeme}`, prefix: true }],
            [{ term: `${TERM.word}#${word.lexeme}`, prefix: true }],
          ]
        : [[{ term: `${TERM.word}${word.lexeme}`, prefix: false }]];
    groups.push(
      (word.stem === word.lexeme ? typed : [[{ term: `${TERM.word}${word.stem}`, prefix: false }], ...typed]).map(
        exact,
      ),
    );
  }
  for (const phrase of analysis.phrases) {
    const readings = phrase.english === phrase.simple ? [phrase.english] : [phrase.english, phrase.simple];
    const group: PlannedAlternative[] = [];
    for (const reading of readings) {
      const chain = chainOf(reading);
      if (!chain || chain.lexemes.some((lexeme) => DIGIT.test(lexeme))) return null;
      if (chain.lexemes.length === 0) continue;
      const alternative = phraseAlternative(chain);
      if (!alternative) return null;
      group.push(alternative);
    }
    if (group.length) groups.push(group);
  }
  // Only stop words: the GIN path decides what an empty query matches.
  if (groups.length === 0 && (analysis.words.length || analysis.phrases.length)) return null;
  if (query.statuses)
    groups.push(query.statuses.map((status) => exact([{ term: `${TERM.status}${status}`, prefix: false }])));
  for (const { column, values } of query.facets)
    groups.push(values.map((value) => exact([{ term: `${FACETS[column]}${value}`, prefix: false }])));
  return groups;
}

/**
 * The groups as the dictionary allows: a phrase's triples where all are materialized, else its pairs
 * (confirmed; `missing` names the triples to ask for). An alternative with a pattern in no work order
 * matches nothing, so only alternatives that can match make the search confirm its candidates.
 */
function resolve(
  planned: PlannedAlternative[][],
  expansion: Expansion,
): { groups: Group[]; confirm: boolean; missing: string[] } {
  const known = (pattern: Pattern) => expansion.get(key(pattern))!.length > 0;
  const missing = new Set<string>();
  let confirm = false;
  const groups = planned.map((group) =>
    group.map((alternative) => {
      if (alternative.triples?.every(known)) {
        confirm ||= alternative.triples.length > 1;
        return alternative.triples;
      }
      if (alternative.confirm && alternative.patterns.every(known)) {
        confirm = true;
        for (const triple of alternative.triples ?? []) if (!known(triple)) missing.add(triple.term);
      }
      return alternative.patterns;
    }),
  );
  return { groups, confirm, missing: [...missing] };
}

/**
 * At most how many indexed work orders the groups match, by the dictionary's docs: the smallest group's
 * alternatives, each its smallest pattern (work orders still pending are not counted: a bound for
 * choosing a path, not an answer).
 */
function matchBound(groups: Group[], expansion: Expansion): number {
  const docsOf = (pattern: Pattern) => expansion.get(key(pattern))!.reduce((sum, t) => sum + t.docs, 0);
  return Math.min(
    ...groups.map((alternatives) => alternatives.reduce((sum, patterns) => sum + Math.min(...patterns.map(docsOf)), 0)),
  );
}

/**
 * Rare terms (of one pattern, so of one kind) as the condition that finds their work orders: a facet's
 * column through its btree index, words and pairs as a tsquery through the GIN index.
 */
function rareCondition(terms: string[]): Sql {
  const facet = Object.entries(FACETS).find(([, kind]) => kind === terms[0][0]);
  if (facet) return sql`${Prisma.raw(`w."${facet[0]}"`)} = ANY(${terms.map((t) => Number(t.slice(1)))}::int[])`;
  return sql`w."searchVector" @@ ${terms.map(rareQuery).join(" | ")}::tsquery`;
}

/** A rare word or pair as the tsquery that finds its work orders through the GIN index. */
function rareQuery(term: string): string {
  const quote = (lexeme: string) => `'${lexeme.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
  const rest = term.slice(1);
  if (term[0] === TERM.word) return quote(rest);
  const [a, b] = rest.split(" ");
  return `${quote(a)} ${term[0] === TERM.pair ? "<->" : "<2>"} ${quote(b)}`;
}

/**
 * The query bitmap `q` (chunk, bits) as CTEs, from the dictionary's expansion of every pattern: bitmapped
 * terms from their bitmaps, rare ones from their live rows through the GIN index.
 */
function bitmapCtes(companyId: number, groups: Group[], expansion: Expansion): Sql {
  const labels: { g: number; a: number; s: number; term: string }[] = [];
  const rare: Sql[] = [];
  const sizes: { g: number; a: number; n: number }[] = [];
  for (const [g, group] of groups.entries()) {
    group.forEach((alternative, a) => {
      sizes.push({ g, a, n: alternative.length });
      alternative.forEach((pattern, s) => {
        const terms = expansion.get(key(pattern)) ?? [];
        for (const t of terms.filter((t) => t.bitmapped)) labels.push({ g, a, s, term: t.term });
        const rareTerms = terms.filter((t) => !t.bitmapped);
        if (rareTerms.length) {
          rare.push(sql`SELECT ${g}::int, ${a}::int, ${s}::int, r.chunk, r.bits FROM work_order_search_bits(ARRAY(
              SELECT d.ordinal FROM "WorkOrderSearchDoc" d WHERE d."workOrderId" = ANY(ARRAY(
                SELECT w.id FROM "WorkOrder" w WHERE w."buyerCompanyId" = ${companyId} AND ${rareCondition(rareTerms.map((t) => t.term))})))) r`);
        }
      });
    });
  }
  return sql`src (g, a, s, chunk, bits) AS (
      SELECT l.g, l.a, l.s, b.chunk, b.bits
        FROM unnest(${labels.map((l) => l.g)}::int[], ${labels.map((l) => l.a)}::int[], ${labels.map((l) => l.s)}::int[],
                    ${labels.map((l) => l.term)}::text[]) AS l (g, a, s, term)
        JOIN "WorkOrderSearchBitmap" b ON b."buyerCompanyId" = ${companyId} AND b.term = l.term COLLATE "C"
      ${rare.length ? sql`UNION ALL ${Prisma.join(rare, " UNION ALL ")}` : Prisma.empty}
    ), sets AS (
      SELECT g, a, s, chunk, bit_or(bits) AS bits FROM src GROUP BY g, a, s, chunk
    ), alts AS (
      SELECT x.g, x.a, x.chunk, bit_and(x.bits) AS bits
        FROM sets x JOIN unnest(${sizes.map((z) => z.g)}::int[], ${sizes.map((z) => z.a)}::int[], ${sizes.map((z) => z.n)}::int[]) AS n (g, a, n)
          ON n.g = x.g AND n.a = x.a
       GROUP BY x.g, x.a, x.chunk, n.n HAVING count(*) = n.n
    ), groups AS (
      SELECT g, chunk, bit_or(bits) AS bits FROM alts GROUP BY g, chunk
    ), q AS MATERIALIZED (
      SELECT chunk, bit_and(bits) AS bits FROM groups GROUP BY chunk HAVING count(*) = ${groups.length}
    ), pending AS MATERIALIZED (
      SELECT "workOrderId" AS id FROM "WorkOrderSearchPending" WHERE "buyerCompanyId" = ${companyId}
    )`;
}

/** Each pattern's terms in the dictionary (a materialized triple is listed even when no work order holds it). */
type Expansion = Map<string, { term: string; bitmapped: boolean; docs: number }[]>;

const key = (pattern: Pattern) => `${pattern.prefix ? "*" : "="}${pattern.term}`;

/** The query's text analysed; a list without a search (filters only) has none to analyse. */
const analysisOf = (ctx: Context, query: BitmapQuery): Promise<Analysis> | Analysis =>
  query.words.length || query.phrases.length ? analyze(ctx, query.words, query.phrases) : { words: [], phrases: [] };

/** Dictionary terms of one kind (their first character), as a range the primary key serves. */
const ofKind = (kind: string) =>
  sql`term >= ${kind} COLLATE "C" AND term < ${String.fromCharCode(kind.charCodeAt(0) + 1)} COLLATE "C"`;

/** The words' stems and the phrases' tsqueries, computed by PostgreSQL exactly as text-query.ts's tsquery does. */
async function analyze(ctx: Context, words: string[], phrases: string[]): Promise<Analysis> {
  const [row] = await ctx.db.$queryRaw<[Analysis]>`
    SELECT coalesce((SELECT json_agg(json_build_object(
                       'whole', lower(x) = ANY(tsvector_to_array(to_tsvector('simple', x))),
                       'lexeme', lower(x), 'stem', (ts_lexize('english_stem', lower(x)))[1]) ORDER BY i)
                       FROM unnest(${words}::text[]) WITH ORDINALITY AS t (x, i)), '[]') AS words,
           coalesce((SELECT json_agg(json_build_object(
                       'english', phraseto_tsquery('english', x)::text, 'simple', phraseto_tsquery('simple', x)::text) ORDER BY i)
                       FROM unnest(${phrases}::text[]) WITH ORDINALITY AS t (x, i)), '[]') AS phrases`;
  return row;
}

/**
 * Every pattern's terms in the company's dictionary, or null when the search is too wide for this path
 * (too many terms, too many work orders in rare terms, too many pending work orders: the last row).
 */
async function expand(ctx: Context, companyId: number, planned: PlannedAlternative[][]): Promise<Expansion | null> {
  const all = planned.flat().flatMap((alternative) => [...alternative.patterns, ...(alternative.triples ?? [])]);
  const patterns = [...new Map(all.map((p) => [key(p), p])).values()];
  const rows = await ctx.db.$queryRaw<{ i: number; term: string; docs: number; bitmapped: boolean; pending: number }[]>`
    SELECT p.i::int, t.term, t.docs, t.bitmapped, NULL::int AS pending
      FROM unnest(${patterns.map((p) => p.term)}::text[], ${patterns.map((p) => p.prefix)}::boolean[]) WITH ORDINALITY AS p (pattern, prefix, i)
     CROSS JOIN LATERAL (
       SELECT term, docs, bitmapped FROM "WorkOrderSearchTerm"
        WHERE "buyerCompanyId" = ${companyId} AND (docs > 0 OR left(term, 1) = ${TERM.triple})
          AND term >= p.pattern COLLATE "C"
          AND term <= (CASE WHEN p.prefix THEN p.pattern || chr(1114111) ELSE p.pattern END) COLLATE "C"
        LIMIT ${TERM_LIMIT + 1}) t
    UNION ALL
    SELECT 0, '', 0, false, ${pendingUpToLimit(companyId)}`;
  const pending = rows.find((r) => r.pending !== null)!.pending;
  const terms = rows.filter((r) => r.pending === null);
  const rareDocs = terms.filter((t) => !t.bitmapped).reduce((sum, t) => sum + t.docs, 0);
  if (pending > PENDING_LIMIT || terms.length > TERM_LIMIT || rareDocs > RARE_LIMIT) return null;
  const expansion: Expansion = new Map(patterns.map((p) => [key(p), []]));
  for (const t of terms) expansion.get(key(patterns[t.i - 1]))!.push(t);
  return expansion;
}

/** The query's bits as one array of chunks (the `bitmap` CTE), and a doc `d`'s bit in it (false past the last chunk). */
const BITMAP = sql`bitmap AS (
    SELECT ARRAY(SELECT q.bits FROM generate_series(0, (SELECT max(chunk) FROM q)) c LEFT JOIN q ON q.chunk = c ORDER BY c) AS chunks
  )`;
const BIT_SET = sql`coalesce(get_bit((SELECT chunks FROM bitmap)[d.ordinal / ${CHUNK} + 1], d.ordinal % ${CHUNK}) = 1, false)`;

/** A company's indexed docs that are not pending (pending work orders are read from their live rows). */
const indexedDocs = (companyId: number) =>
  sql`d."buyerCompanyId" = ${companyId} AND d."workOrderId" NOT IN (SELECT id FROM pending)`;

/** The pending work orders whose live rows match the query, with their live sort key (id, key). */
const liveRows = (query: BitmapQuery) =>
  sql`SELECT w.id, ${query.walk.live} AS key FROM "WorkOrder" w WHERE w.id IN (SELECT id FROM pending) AND ${query.where}`;

/** Whether key a sorts before key b in the page's order, a null key last either way (the runs' pages). */
const sortsBefore =
  (query: BitmapQuery) =>
  (a: Sql, b: Sql): Sql =>
    sql`(${a} IS NOT NULL AND (${b} IS NULL OR ${a} ${Prisma.raw(query.walk.order === "asc" ? "<" : ">")} ${b}))`;

/** A block of ordinals (WorkOrderSearchBlock) as a literal, and the blocks per chunk of bits. */
const BLOCK = Prisma.raw(String(ORDINAL_BLOCK));
const BLOCKS_PER_CHUNK = CHUNK_BITS / ORDINAL_BLOCK;

/**
 * `pending_set` (key, block): the pending work orders whose indexed bit is set, each with `key` over its doc
 * `d` and its doc's block: the bits count them, the walks skip them, so a count from the bits subtracts them.
 */
const pendingSet = (key: Sql = sql`NULL`) => sql`pending_set AS MATERIALIZED (
      SELECT ${key} AS key, d.ordinal / ${BLOCK} AS block FROM pending p JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = p.id WHERE ${BIT_SET}
    )`;

/**
 * The sorts the docs keep a key of (sql/indexer.sql work_order_search_sort_keys), each with its own index:
 * the doc's column, and for a key that may be null (sorted last in either order) its type's largest
 * value: a descending walk of the keys up to it starts at the last key, where `IS NOT NULL` walked
 * through every null first (the index keeps them at its end: 300,000 priorities, 15 ms before the first row).
 * `walksWindows`: whether a created window's page may walk the key's index (docsPage). Equal keys are
 * indexed in id order, which follows creation, so a window's docs sit at the end of each run of equal
 * keys: cheap to reach for 2,000 location names, not for the five priorities' or the nulls' runs of
 * hundreds of thousands (a month's first page by woPriority walked 190,000 docs: 20 ms, read 5).
 */
const DOC_SORTS: Record<Walk["by"], { column: string; nullable?: { max: string }; walksWindows: boolean }> = {
  createdAt: { column: "createdAt", walksWindows: true },
  woPriority: { column: "woPriority", nullable: { max: "2147483647" }, walksWindows: false },
  locationName: { column: "locationName", walksWindows: true },
  lastServiceCallServiceScheduledAt: {
    column: "lastServiceCallAt",
    nullable: { max: "'infinity'::timestamptz" },
    walksWindows: false,
  },
};

/** A page's order as the docs walk it: the sort_by, the direction, and the key over a live row `w` (pending ones). */
export type Walk = {
  by: "createdAt" | "woPriority" | "locationName" | "lastServiceCallServiceScheduledAt";
  order: "asc" | "desc";
  live: Sql;
};

/**
 * A page in any sort_by order from the ordinals' own indexes, which hold each work order's sort keys: no
 * work order row is read but the pending ones. Indexed work orders come from `pick`: `walked`, the docs
 * in the page's order, each tested by the condition (its bit, its created window, or TRUE) until offset
 * + limit are in; or `read`, every doc the condition picks (decoded ordinals, a window's range), sorted.
 * Pending ones come from their live rows. A key that may be null sorts NULLS LAST either way: its walk
 * takes the rows with a key, then those without (by id; ordered by the index's own columns, so that the
 * planner walks that index).
 */
function docPageSql(query: BitmapQuery, pick: { walked: Sql } | { read: Sql }): Sql {
  const { by, order } = query.walk;
  const { column, nullable } = DOC_SORTS[by];
  const key = Prisma.raw(`d."${column}"`);
  const dir = Prisma.raw(order);
  const n = query.skip + query.take;
  const docs = (where: Sql, sort: Sql) => sql`(SELECT d."workOrderId" AS id, ${key} AS key FROM "WorkOrderSearchDoc" d
      WHERE ${indexedDocs(query.companyId)} AND ${where} ${sort})`;
  const walked = (where: Sql, member: Sql) =>
    docs(sql`${where} AND ${member}`, sql`ORDER BY ${key} ${dir}, d."workOrderId" ${dir} LIMIT ${n}`);
  const names = by === "locationName" ? locationNames(query) : undefined;
  const indexed =
    "read" in pick
      ? docs(pick.read, Prisma.empty)
      : names
        ? sql`(SELECT x.id, x.key FROM unnest(${names}) AS n (name) CROSS JOIN LATERAL ${docs(
            sql`${key} = n.name AND ${pick.walked}`,
            sql`ORDER BY d."workOrderId" ${dir} LIMIT ${n}`,
          )} x)`
        : nullable
          ? sql`${walked(sql`${key} <= ${Prisma.raw(nullable.max)}`, pick.walked)} UNION ALL ${walked(sql`${key} IS NULL`, pick.walked)}`
          : walked(sql`TRUE`, pick.walked);
  return sql`SELECT ARRAY(SELECT id FROM (
      ${indexed}
      UNION ALL
      ${liveRows(query)}
    ) m ORDER BY key ${dir} ${nullable ? Prisma.raw("NULLS LAST") : Prisma.empty}, id ${dir} LIMIT ${query.take} OFFSET ${query.skip}) AS ids`;
}

/**
 * The names of a location filter's locations, when it has one (an array). Its matches all carry one of
 * them, so a walk by location name walks each name's docs apart (its first offset + limit, in id order)
 * and the page is their merge, where one walk of the name index tests every doc sorted before them and
 * between them (a store's 25,000 work orders took a walk of 500,000 docs, 110 ms). A renamed location's
 * docs are pending until indexed again, and pending ones are read live: the docs' names are the locations'.
 */
function locationNames(query: BitmapQuery): Sql | undefined {
  const locations = query.facets.find((f) => f.column === "locationId");
  if (!locations) return undefined;
  return sql`ARRAY(SELECT DISTINCT l.name FROM "Location" l WHERE l.id = ANY(${locations.values}::int[]))`;
}

/** Rare priorities' docs (runs without bitmaps, counted by walking them) up to which priorityPageSql answers. */
const RARE_RUN_DOCS = 10_000;

/**
 * A page of the bits `q` by woPriority, run by run (TERM.priority): each priority's indexed matches are
 * counted by AND with its bitmap (a rare priority's by walking its docs), the runs before the page's
 * offset are skipped with their count and the runs without a match are never walked; in the runs the page
 * lands in, the docs are walked in id order up to the matches wanted, or decoded (the run's bits ANDed
 * with the query's) when a walk would test more docs than decoding costs. The run without a priority is
 * what the others leave and is walked. Pending work orders come from their live rows, placed by their live
 * key. One walk of the priority index tested every doc of a run with no match before reaching the next: a
 * supplier without any work order of the first priority walked 116,000 docs for its first page. When the
 * rare runs hold more than RARE_RUN_DOCS docs, the walk of the whole index (`fallback`) answers instead.
 * A page deep in a run with bits starts in it at a block's first id (blockStartCtes over the run's bits
 * ANDed with the query's) where the run's first ORDINAL_BLOCK matches are before the page, or whenever
 * `blocks` is true or "only" ("only", for the tests: null where no block may start it); the walk of a
 * status's 10,000th match in its run tested 97,000 docs from the run's start.
 * `walkRuns`: true walks every run, false decodes every run with bits (the tests take both).
 */
function priorityPageSql(
  query: BitmapQuery,
  fallback: Sql,
  options: { decodeLimit: number; walkRuns?: boolean; blocks?: Blocks },
): Sql {
  const { companyId, skip, take } = query;
  const dir = Prisma.raw(query.walk.order);
  const before = sortsBefore(query);
  const indexed = indexedDocs(companyId);
  // A run's chunks with the query's, by the run's term.
  const runBits = (term: Sql) => sql`FROM "WorkOrderSearchBitmap" b JOIN q ON q.chunk = b.chunk
     WHERE b."buyerCompanyId" = ${companyId} AND b.term = ${term} COLLATE "C"`;
  const decode =
    options.walkRuns === undefined
      ? sql`r.bitmapped AND r.n <= ${options.decodeLimit} AND NOT ${walkPays(sql`r.m`, sql`r.n`, sql`r.docs`)}`
      : sql`r.bitmapped AND ${!options.walkRuns}`;
  // A run's docs in id order from where the run's read starts (its first doc, or a block's first id).
  const walk = (key: Sql) => sql`SELECT d."workOrderId" AS id, d."woPriority" AS key FROM "WorkOrderSearchDoc" d
      WHERE ${indexed} AND ${key} AND ${BIT_SET}
        AND d."workOrderId" ${Prisma.raw(query.walk.order === "asc" ? ">=" : "<=")} coalesce(r.from_id, ${query.walk.order === "asc" ? -2147483648 : 2147483647})
      ORDER BY d."workOrderId" ${dir} LIMIT r.m`;
  // The start run is read from a block where it has bits and, as the service chooses, the page is deep in it.
  const deep =
    options.blocks === undefined ? sql`${skip} - s.rows_before >= ${BLOCK}` : sql`${options.blocks !== false}`;
  const rareDocs = sql`(SELECT coalesce(sum(docs), 0) FROM "WorkOrderSearchTerm"
     WHERE "buyerCompanyId" = ${companyId} AND ${ofKind(TERM.priority)} AND NOT bitmapped)`;
  return sql`CASE WHEN ${rareDocs} > ${RARE_RUN_DOCS} THEN (${fallback}) ELSE (WITH terms AS MATERIALIZED (
      SELECT term, substr(term, 2)::int AS key, docs, bitmapped FROM "WorkOrderSearchTerm"
       WHERE "buyerCompanyId" = ${companyId} AND ${ofKind(TERM.priority)} AND docs > 0
    ), ${pendingSet(sql`d."woPriority"`)}, keyed AS MATERIALIZED (
      SELECT t.term, t.key, t.docs, t.bitmapped,
             CASE WHEN t.bitmapped
                  THEN (SELECT coalesce(sum(bit_count(b.bits & q.bits)), 0) ${runBits(sql`t.term`)})
                       - (SELECT count(*) FROM pending_set s WHERE s.key = t.key)
                  ELSE (SELECT count(*) FROM "WorkOrderSearchDoc" d WHERE ${indexed} AND d."woPriority" = t.key AND ${BIT_SET})
             END AS n
        FROM terms t
    ), runs AS MATERIALIZED (
      SELECT term, key, docs, bitmapped, n FROM keyed
      UNION ALL
      -- The run without a priority: the indexed matches the others leave.
      SELECT NULL, NULL, NULL, false,
             (SELECT coalesce(sum(bit_count(bits)), 0) FROM q) - (SELECT count(*) FROM pending_set) - (SELECT coalesce(sum(n), 0) FROM keyed)
    ), live AS MATERIALIZED (${liveRows(query)}), placed AS MATERIALIZED (
      -- Each run with matches in the page's order: its indexed matches before it, and every row before it.
      SELECT o.*, o.before + (SELECT count(*) FROM live l WHERE ${before(sql`l.key`, sql`o.key`)}) AS rows_before
        FROM (SELECT x.*, sum(x.n) OVER w - x.n AS before, row_number() OVER w AS i FROM runs x WHERE x.n > 0
              WINDOW w AS (ORDER BY x.key ${dir} NULLS LAST ROWS UNBOUNDED PRECEDING)) o
    ), start AS MATERIALIZED (
      -- The run the page starts in (none: it starts among the pending rows before the first run).
      SELECT i, term, key, bitmapped, before, rows_before FROM placed WHERE rows_before <= ${skip} ORDER BY i DESC LIMIT 1
    ), ${blockStartCtes(query, {
      // The start run's matches, when it has bits and the page is deep in it.
      bits: sql`SELECT q.chunk, b.bits & q.bits FROM start s JOIN "WorkOrderSearchBitmap" b
                   ON b."buyerCompanyId" = ${companyId} AND b.term = s.term COLLATE "C" JOIN q ON q.chunk = b.chunk
                 WHERE s.bitmapped AND ${deep}`,
      key: "workOrderId",
      docs: sql`d."woPriority" = (SELECT key FROM start)`,
      pending: sql`s.key = (SELECT key FROM start)`,
      live: sql`SELECT l.id, l.id AS key FROM live l WHERE l.key = (SELECT key FROM start)`,
      skip: sql`${skip} - (SELECT rows_before FROM start)`,
    })}, run_start AS MATERIALIZED (
      -- Where the start run's read starts: a block's first id and the rows of the run ahead of it, or its first doc.
      SELECT b.key AS id, a.indexed, a.live FROM block_start b, ahead a WHERE (SELECT ok FROM blocks_usable)
    ), wanted AS MATERIALIZED (
      -- Rows wanted from the start on, each run's share of them, and how it is read.
      SELECT r.*, ${decode} AND r.from_id IS NULL AS decode FROM (
        SELECT o.term, o.key, o.docs, o.bitmapped, o.n, f.id AS from_id,
               CASE WHEN f.id IS NULL
                    THEN least(o.n, ${skip + take} - coalesce((SELECT rows_before FROM start), 0)
                                    - (o.before - coalesce((SELECT before FROM start), 0)))
                    ELSE least(o.n - f.indexed, ${skip + take} - (SELECT rows_before FROM start) - f.indexed - f.live) END AS m
          FROM placed o LEFT JOIN run_start f ON o.i = (SELECT i FROM start)
         WHERE o.i >= coalesce((SELECT i FROM start), 1)
      ) r WHERE r.m > 0
    )
    SELECT ARRAY(SELECT id FROM (
      SELECT x.id, x.key FROM wanted r CROSS JOIN LATERAL (${walk(sql`d."woPriority" = r.key`)}) x
       WHERE r.key IS NOT NULL AND NOT r.decode
      UNION ALL
      SELECT x.id, x.key FROM wanted r CROSS JOIN LATERAL (${walk(sql`d."woPriority" IS NULL`)}) x WHERE r.key IS NULL
      UNION ALL
      SELECT x.id, x.key FROM wanted r CROSS JOIN LATERAL (
        SELECT d."workOrderId" AS id, d."woPriority" AS key FROM "WorkOrderSearchDoc" d
         WHERE ${indexed} AND d.ordinal = ANY(ARRAY(SELECT work_order_search_ordinals(b.chunk, b.bits & q.bits) ${runBits(sql`r.term`)}))
         ORDER BY d."workOrderId" ${dir} LIMIT r.m) x
       WHERE r.decode
      UNION ALL
      SELECT id, key FROM live l WHERE NOT EXISTS (SELECT 1 FROM start s WHERE ${before(sql`l.key`, sql`s.key`)})
        AND NOT EXISTS (SELECT 1 FROM start s, run_start f WHERE l.key = s.key AND ${before(sql`l.id`, sql`f.id`)})
    ) m ORDER BY key ${dir} NULLS LAST, id ${dir}
      LIMIT ${take}
      OFFSET ${skip} - coalesce((SELECT rows_before FROM start), 0) - coalesce((SELECT indexed + live FROM run_start), 0))
      ${options.blocks === "only" ? sql`WHERE EXISTS (SELECT 1 FROM run_start)` : Prisma.empty}) END`;
}

/**
 * Blocks whose bounds straddle the page's start and whose docs are walked to count the matches ahead of
 * it, up to which a page starts at a block (blockStartCtes): a company whose docs are far out of creation
 * order (rows imported with old dates) has many, and the walk from the first doc answers instead.
 */
const STRADDLING_BLOCKS = 8;

/** The keys a page may start at a block's bound of, with the block table's columns of their bounds. */
const BLOCK_KEYS = {
  createdAt: ["minCreatedAt", "maxCreatedAt"],
  workOrderId: ["minWorkOrderId", "maxWorkOrderId"],
} as const;

/**
 * Where a page starts among the blocks of ORDINAL_BLOCK ordinals instead of at its first match: each
 * block's matches are counted by bit_count of its part of `bits` ((chunk, bits) rows; less its pending docs,
 * those of `pending_set` s that `pending` picks) and its bounds of `key` are kept (WorkOrderSearchBlock). The
 * start is the deepest block's first key (its bound in the page's order) with at most `skip` matches
 * possibly ahead of it; the matches ahead are counted exactly: the blocks wholly ahead by their counts, the
 * few whose bounds straddle the start by walking their docs (those that `docs` picks with their bit set),
 * the pending ones by `live` (id, key). Docs are numbered as work orders are indexed, so a block's keys are
 * close together and a deep page walks about one block from its start instead of every match before it.
 * The CTEs: `block_start` (key: none when no block may start the page), `ahead` (indexed, live: the rows
 * ahead of the start) and `blocks_usable` (ok: false when a block has no bounds or too many straddle).
 */
function blockStartCtes(
  query: BitmapQuery,
  spec: { bits: Sql; key: keyof typeof BLOCK_KEYS; docs: Sql; pending: Sql; live: Sql; skip: Sql },
): Sql {
  const { companyId } = query;
  const desc = query.walk.order === "desc";
  // Whether key a sorts strictly ahead of key b in the page's order; a block's first and last key in it.
  const ahead = (a: Sql, b: Sql) => sql`(${a} ${Prisma.raw(desc ? ">" : "<")} ${b})`;
  const [low, high] = BLOCK_KEYS[spec.key];
  const [first, last] = (desc ? [high, low] : [low, high]).map((c) => Prisma.raw(`b."${c}"`));
  const column = Prisma.raw(`d."${spec.key}"`);
  const start = sql`(SELECT key FROM block_start)`;
  return sql`blocks AS MATERIALIZED (
      SELECT k.block, k.n - (SELECT count(*) FROM pending_set s WHERE s.block = k.block AND ${spec.pending}) AS n,
             ${first} AS first, ${last} AS last
        FROM (SELECT x.chunk * ${BLOCKS_PER_CHUNK} + i AS block, bit_count(substring(x.bits FROM i * ${BLOCK} + 1 FOR ${BLOCK})) AS n
                FROM (${spec.bits}) x (chunk, bits), generate_series(0, ${BLOCKS_PER_CHUNK - 1}) i) k
        LEFT JOIN "WorkOrderSearchBlock" b ON b."buyerCompanyId" = ${companyId} AND b.block = k.block
       WHERE k.n > 0
    ), block_live AS MATERIALIZED (${spec.live}), block_start AS MATERIALIZED (
      -- The deepest block's first key with at most skip matches that may sort ahead of it: the blocks'
      -- and the pending rows' matches strictly ahead of each key, summed in one pass in the page's order.
      SELECT key FROM (
        -- Up to and with the key's peers, less the peers (EXCLUDE GROUP sums every row's frame anew).
        SELECT key, block, sum(n) OVER (ORDER BY key ${Prisma.raw(query.walk.order)}) - sum(n) OVER (PARTITION BY key) AS bound
          FROM (SELECT first AS key, n, true AS block FROM blocks UNION ALL SELECT key, 1, false FROM block_live) x
      ) c WHERE block AND bound <= ${spec.skip} ORDER BY key ${Prisma.raw(desc ? "ASC" : "DESC")} LIMIT 1
    ), straddling AS MATERIALIZED (
      SELECT o.block FROM blocks o WHERE ${ahead(sql`o.first`, start)} AND NOT ${ahead(sql`o.last`, start)}
    ), ahead AS MATERIALIZED (
      -- Exactly the rows ahead of the start: whole blocks, the straddling blocks' docs, the pending rows.
      SELECT (SELECT coalesce(sum(o.n), 0) FROM blocks o WHERE ${ahead(sql`o.last`, start)})
             + (SELECT count(*) FROM straddling x JOIN "WorkOrderSearchDoc" d
                   ON d."buyerCompanyId" = ${companyId} AND d.ordinal >= x.block * ${BLOCK} AND d.ordinal < (x.block + 1) * ${BLOCK}
                 WHERE ${indexedDocs(companyId)} AND ${spec.docs} AND ${ahead(column, start)} AND ${BIT_SET}) AS indexed,
             (SELECT count(*) FROM block_live l WHERE ${ahead(sql`l.key`, start)}) AS live
    ), blocks_usable AS MATERIALIZED (
      SELECT EXISTS (SELECT 1 FROM block_start) AND NOT EXISTS (SELECT 1 FROM blocks WHERE first IS NULL)
             AND (SELECT count(*) FROM straddling) <= ${STRADDLING_BLOCKS} AS ok
    )`;
}

/**
 * A page of the bits `q` by createdAt that starts at a block's key (blockStartCtes) and walks the createdAt
 * index from there (a status's 10,000th match walked 133,000 docs from the first). `fallback` (the walk from
 * the first doc) answers when no block may start the page.
 */
function createdAtPageSql(query: BitmapQuery, fallback: Sql): Sql {
  const { skip, take } = query;
  const desc = query.walk.order === "desc";
  const dir = Prisma.raw(query.walk.order);
  const ahead = (a: Sql, b: Sql) => sql`(${a} ${Prisma.raw(desc ? ">" : "<")} ${b})`;
  const start = sql`(SELECT key FROM block_start)`;
  const rowsAhead = sql`(SELECT indexed + live FROM ahead)`;
  return sql`(WITH ${pendingSet()}, live AS MATERIALIZED (${liveRows(query)}), ${blockStartCtes(query, {
    bits: sql`SELECT chunk, bits FROM q`,
    key: "createdAt",
    docs: sql`TRUE`,
    pending: sql`TRUE`,
    live: sql`SELECT id, key FROM live`,
    skip: sql`${skip}`,
  })}
    SELECT CASE WHEN NOT (SELECT ok FROM blocks_usable)
                THEN (${fallback})
                ELSE ARRAY(SELECT id FROM (
                  (SELECT d."workOrderId" AS id, d."createdAt" AS key FROM "WorkOrderSearchDoc" d
                    WHERE ${indexedDocs(query.companyId)} AND NOT ${ahead(sql`d."createdAt"`, start)} AND ${BIT_SET}
                    ORDER BY d."createdAt" ${dir}, d."workOrderId" ${dir} LIMIT ${skip + take} - ${rowsAhead})
                  UNION ALL
                  SELECT id, key FROM live l WHERE NOT ${ahead(sql`l.key`, start)}
                ) m ORDER BY key ${dir}, id ${dir} LIMIT ${take} OFFSET ${skip} - ${rowsAhead}) END)`;
}

/** The matches' docs by their decoded ordinals (docPageSql's `read` of the bits). */
const DECODED = sql`d.ordinal = ANY(ARRAY(SELECT work_order_search_ordinals(q.chunk, q.bits) FROM q))`;

/**
 * Whether the first `wanted` of `count` matches among `docs` are walked (expected to test at most
 * WALK_ROWS + WALKED_PER_MATCH per match) rather than read and sorted; SQL over the int expressions. A
 * page wants offset + limit of the company's docs; a priority's run its share of them (priorityPageSql).
 */
const walkPays = (wanted: Sql | number, count: Sql, docs: Sql) =>
  sql`${wanted}::bigint * ${docs} <= (${WALK_ROWS} + ${WALKED_PER_MATCH} * ${count}::bigint) * ${count}`;

/**
 * count_by's groups as CTEs and the final SELECT: `counted` (value, n), the indexed work orders per value
 * (one row per value: the dictionary's or the bits' count), and `fixes` (value, n), the pending rows'
 * corrections, joined instead of grouped together: grouping the 20,000 values of an asset's count_by
 * took 40–50 ms of a 65 ms statement, a hash join on the few corrections a few. The groups with count > 0,
 * each value as its column's `type` (statuses as JSON strings), in its order, come out as the text of
 * their JSON objects joined by commas, with `unvalued`, the work orders without a value (`total` from a
 * CTE before these, less the groups' counts): one value instead of 20,000 rows for the service to parse
 * and write again (core/count-by.ts `groupsJsonAggregate`, which reads them in the sorted subquery's
 * order: the aggregate sits above the join with the `fix` CTE, which only the leader process reads, so it
 * is never split among parallel workers). Values compare in the "C" collation while text: the database's
 * default (C.UTF-8 here) made hashing them slower.
 */
const grouped = (counted: Sql, fixes: Sql, type: string) => sql`
  fix (value, n) AS MATERIALIZED (SELECT value COLLATE "C", sum(n)::int FROM (${fixes}) f (value, n) GROUP BY 1)
  SELECT (SELECT n FROM total)::int - coalesce(sum(n), 0)::int AS unvalued,
         ${groupsJsonAggregate(type === "int" ? "int" : "any", { nulls: false })} AS groups
    FROM (SELECT value::${Prisma.raw(type)} AS value, n::int AS n FROM (
            SELECT coalesce(c.value, f.value) AS value, coalesce(c.n, 0) + coalesce(f.n, 0) AS n
              FROM (${counted}) c (value, n) FULL JOIN fix f ON f.value = c.value COLLATE "C"
          ) g WHERE n > 0 ORDER BY 1) g`;

type CountGroup = { value: string | number | boolean | null; count: number };

/** The groups of a `grouped` statement as the JSON of count_by's answer, the null group last when there is one. */
async function groupRows(ctx: Context, statement: Sql): Promise<RawJson<CountGroup[]>> {
  const [{ unvalued, groups }] = await sqlRows<{ unvalued: number; groups: string | null }>(ctx.db, statement);
  const parts = [...(groups ? [groups] : []), ...(unvalued > 0 ? [`{"value":null,"count":${unvalued}}`] : [])];
  return new RawJson(`[${parts.join(",")}]`);
}

/** Whether the company has more pending work orders than the live-row correction should read. */
async function tooManyPending(ctx: Context, companyId: number): Promise<boolean> {
  const [{ pending }] = await ctx.db.$queryRaw<{ pending: number }[]>`SELECT ${pendingUpToLimit(companyId)} AS pending`;
  return pending > PENDING_LIMIT;
}

/**
 * `pending`, `old` (the indexed values of pending work orders that have a doc) and `total` (n: every work
 * order of the company in `query.where`): the dictionary's docs of the status terms (each indexed work
 * order has exactly one), less the pending ones' indexed docs, plus their live rows. With `statuses`,
 * of those statuses only (`query.where` filters on them too).
 */
const companyTotalCtes = (query: BitmapQuery, statuses?: string[]) => sql`
  pending AS MATERIALIZED (SELECT "workOrderId" AS id FROM "WorkOrderSearchPending" WHERE "buyerCompanyId" = ${query.companyId}),
  old AS (SELECT x.* FROM "WorkOrderSearchPending" x JOIN "WorkOrderSearchDoc" d USING ("workOrderId")
           WHERE x."buyerCompanyId" = ${query.companyId} ${statuses ? sql`AND x."oldStatus"::text = ANY(${statuses}::text[])` : Prisma.empty}),
  total AS (
    SELECT (SELECT coalesce(sum(docs), 0) FROM "WorkOrderSearchTerm" WHERE "buyerCompanyId" = ${query.companyId}
               AND ${statuses ? sql`term = ANY(${statuses.map((status) => TERM.status + status)}::text[])` : ofKind(TERM.status)})
         - (SELECT count(*) FROM old) + ${pendingMatching(query)} AS n
  )`;

/** companyTotalCtes's `total`, or null when the company has more pending work orders than it should read. */
const totalUnlessBacklog = (query: BitmapQuery) => unlessBacklog(query.companyId, sql`SELECT n FROM total`);

/**
 * The exact number of a buyer's work orders without a search or filter (the list's total), from the
 * dictionary instead of a count of its rows (a million rows: 100–200 ms); null when too many are pending.
 */
export async function bitmapTotal(ctx: Context, query: BitmapQuery): Promise<number | null> {
  const [{ n }] = await ctx.db.$queryRaw<{ n: number | null }[]>`
    WITH ${companyTotalCtes(query)}
    SELECT ${totalUnlessBacklog(query)} AS n`;
  return n;
}

/** A created window as the docs' condition (their createdAt, which the sort indexes carry too); TRUE for none. */
function windowSql(created: BitmapQuery["created"]): Sql {
  const bounds = [
    ...(created?.from ? [sql`d."createdAt" >= ${created.from}`] : []),
    ...(created?.to ? [sql`d."createdAt" <= ${created.to}`] : []),
  ];
  return bounds.length ? Prisma.join(bounds, " AND ") : sql`TRUE`;
}

/**
 * A page run by run of equal keys of the sort: `runs` (key, n, low, high) gives each key's indexed
 * matches, and the lowest and highest id among them where known (else null); the runs before the offset
 * are skipped by their counts and the runs the page lands in are walked in the key's index from their
 * lowest id (highest for desc) up to their share of the page, each doc tested by `member`. Pending work
 * orders come from their live rows, placed by their live key. (A page by woPriority from the bits,
 * priorityPageSql, does the same with its own ways of counting and reading a run.)
 */
function runsPageSql(query: BitmapQuery, runs: Sql, member: Sql): Sql {
  const { companyId, skip, take } = query;
  const { column, nullable } = DOC_SORTS[query.walk.by];
  const key = Prisma.raw(`d."${column}"`);
  const dir = Prisma.raw(query.walk.order);
  const nulls = nullable ? Prisma.raw("NULLS LAST") : Prisma.empty;
  const before = sortsBefore(query);
  const walk = (match: Sql) => sql`SELECT d."workOrderId" AS id, ${key} AS key FROM "WorkOrderSearchDoc" d
      WHERE ${indexedDocs(companyId)} AND ${match} AND ${member}
        AND d."workOrderId" BETWEEN coalesce(r.low, -2147483648) AND coalesce(r.high, 2147483647)
      ORDER BY ${key} ${dir}, d."workOrderId" ${dir} LIMIT r.m`;
  return sql`(WITH runs AS MATERIALIZED (${runs}), live AS MATERIALIZED (${liveRows(query)}), placed AS MATERIALIZED (
      -- Each run in the page's order: the indexed matches before it, and every row before it.
      SELECT o.*, o.before + (SELECT count(*) FROM live l WHERE ${before(sql`l.key`, sql`o.key`)}) AS rows_before
        FROM (SELECT x.*, sum(x.n) OVER w - x.n AS before, row_number() OVER w AS i FROM runs x
              WINDOW w AS (ORDER BY x.key ${dir} ${nulls} ROWS UNBOUNDED PRECEDING)) o
    ), start AS MATERIALIZED (
      -- The run the page starts in (none: it starts among the pending rows before the first run).
      SELECT i, key, before, rows_before FROM placed WHERE rows_before <= ${skip} ORDER BY i DESC LIMIT 1
    ), wanted AS MATERIALIZED (
      SELECT * FROM (
        SELECT o.key, o.low, o.high, least(o.n, ${skip + take} - coalesce((SELECT rows_before FROM start), 0)
                                               - (o.before - coalesce((SELECT before FROM start), 0))) AS m
          FROM placed o WHERE o.i >= coalesce((SELECT i FROM start), 1)
      ) r WHERE r.m > 0
    )
    SELECT ARRAY(SELECT id FROM (
      SELECT x.id, x.key FROM wanted r CROSS JOIN LATERAL (${walk(sql`${key} = r.key`)}) x WHERE r.key IS NOT NULL
      UNION ALL
      SELECT x.id, x.key FROM wanted r CROSS JOIN LATERAL (${walk(sql`${key} IS NULL`)}) x WHERE r.key IS NULL
      UNION ALL
      SELECT id, key FROM live l WHERE NOT EXISTS (SELECT 1 FROM start s WHERE ${before(sql`l.key`, sql`s.key`)})
    ) m ORDER BY key ${dir} ${nulls}, id ${dir} LIMIT ${take} OFFSET ${skip} - coalesce((SELECT rows_before FROM start), 0)))`;
}

/**
 * A created window's page in another order than createdAt, run by run (runsPageSql): the window's docs
 * (one index-only scan of the createdAt index, which carries every sort key) grouped by key with their
 * count and id bounds, each doc of a run's walk tested against the window (ids follow creation, so most
 * of a run's docs between its bounds are in the window). Reading a month's 27,000 docs and sorting them
 * took 22-40 ms for its 10,000th by woPriority or location name.
 */
function windowRunsPageSql(query: BitmapQuery): Sql {
  const window = windowSql(query.created);
  const key = Prisma.raw(`d."${DOC_SORTS[query.walk.by].column}"`);
  return runsPageSql(
    query,
    sql`SELECT ${key} AS key, count(*) AS n, min(d."workOrderId") AS low, max(d."workOrderId") AS high
          FROM "WorkOrderSearchDoc" d WHERE ${indexedDocs(query.companyId)} AND ${window} GROUP BY 1`,
    window,
  );
}

/** Docs a walk by location name is expected to test ((offset + limit) × docs ÷ matches) past which the names' runs answer. */
const NAME_RUNS_WALKED = 20_000;
/** The offset below which such a page walks without weighing the runs (both branches took 2 ms more to plan). */
const NAME_RUNS_FROM = 1_000;

/**
 * A page by location name under a status filter alone, run by run of names (runsPageSql): each
 * location's matches are the dictionary's count of its facet under the statuses (TERM.statusFacet, the
 * counts count_by reads; a range of terms in key order) less its pending work orders indexed under them,
 * summed per name (the location's name, which its indexed docs carry: a rename queues them all). The
 * walk of the name index tested every doc before the page's offset: a status's 10,000th match by name
 * tested 135,000 docs.
 */
function locationNameRunsSql(query: BitmapQuery, statuses: string[]): Sql {
  const kind = TERM.location;
  const low = statuses.map((status) => `${TERM.statusFacet}${status} ${kind}`);
  const high = low.map((prefix) => prefix.slice(0, -1) + String.fromCharCode(kind.charCodeAt(0) + 1));
  return runsPageSql(
    query,
    sql`SELECT l.name AS key, sum(c.n) AS n, NULL::int AS low, NULL::int AS high FROM (
          SELECT substr(t.term, length(p.low) + 1)::int AS location, t.docs AS n
            FROM unnest(${low}::text[], ${high}::text[]) p (low, high)
            JOIN "WorkOrderSearchTerm" t ON t."buyerCompanyId" = ${query.companyId}
             AND t.term >= p.low COLLATE "C" AND t.term < p.high COLLATE "C"
          UNION ALL
          SELECT x."oldLocationId", -count(*) FROM pending p JOIN "WorkOrderSearchPending" x ON x."workOrderId" = p.id
           WHERE x."oldStatus"::text = ANY(${statuses}::text[]) AND x."oldLocationId" IS NOT NULL GROUP BY 1
        ) c JOIN "Location" l ON l.id = c.location GROUP BY l.name HAVING sum(c.n) > 0`,
    BIT_SET,
  );
}

/**
 * A page of a buyer's work orders without a search or any filter but a created window, from the docs
 * alone; null when too many are pending. Without a window the total is the dictionary's (bitmapTotal's)
 * and the page is walked; a window's total is its docs counted by the createdAt index, less the pending,
 * plus the pending live rows in it, and its page is walked in the sort's index when that pays (always for
 * createdAt, the range being that index's own; see walksWindows) or else read run by run of equal keys
 * (windowRunsPageSql). A company's rows sorted by location name took 2 s at 1M, a month's 27,000 30-57 ms
 * (no index of the work orders has those keys beside the window). `walk` decides the branch instead (the
 * tests take both).
 */
export async function docsPage(
  ctx: Context,
  query: BitmapQuery,
  options: { walk?: boolean } = {},
): Promise<{ ids: number[]; count: number } | null> {
  const window = windowSql(query.created);
  // Counted and read in two index-only scans of the window: reading its docs once into a materialized
  // CTE for both took longer (8 ms more for a month's 27,000).
  const count = query.created
    ? unlessBacklog(
        query.companyId,
        sql`(SELECT count(*) FROM "WorkOrderSearchDoc" d WHERE d."buyerCompanyId" = ${query.companyId} AND ${window}
               AND d."workOrderId" NOT IN (SELECT id FROM pending)) + ${pendingMatching(query)}`,
      )
    : totalUnlessBacklog(query);
  const walked = docPageSql(query, { walked: window });
  const runs = windowRunsPageSql(query);
  const page =
    options.walk !== undefined
      ? sql`(${options.walk ? walked : runs})`
      : !query.created || query.walk.by === "createdAt"
        ? sql`(${walked})`
        : DOC_SORTS[query.walk.by].walksWindows
          ? sql`CASE WHEN ${walkPays(query.skip + query.take, sql`c.count`, sql`c.docs`)} THEN (${walked}) ELSE ${runs} END`
          : runs;
  const [found] = await ctx.db.$queryRaw<{ ids: number[]; count: number | null }[]>`
    WITH ${companyTotalCtes(query)}, counted AS MATERIALIZED (
      SELECT ${count} AS count,
             (SELECT coalesce(max(ordinal) + 1, 0) FROM "WorkOrderSearchDoc" WHERE "buyerCompanyId" = ${query.companyId})::bigint AS docs
    )
    SELECT c.count, CASE WHEN c.count IS NULL OR c.count <= ${query.skip} THEN ARRAY[]::int[] ELSE ${page} END AS ids
      FROM counted c`;
  return found.count === null ? null : { ids: found.ids, count: found.count };
}

/**
 * count_by groups the bitmap postings answer: the status and the facet terms (terms.ts GROUP_FACETS), with
 * the pending table's column of the indexed value.
 */
const GROUPS: Record<string, { kind: string; old: string; type: string }> = {
  status: { kind: TERM.status, old: "oldStatus", type: '"WorkOrderStatus"' },
  ...Object.fromEntries(
    Object.entries(GROUP_FACETS).map(([column, kind]) => [
      column,
      { kind, old: `old${column[0].toUpperCase()}${column.slice(1)}`, type: column === "isPM" ? "boolean" : "int" },
    ]),
  ),
};

export const BITMAP_GROUPS = Object.keys(GROUPS);

/**
 * Each company's indexed work orders, as the dictionary counts them, for SIZE_TTL_MS, per database
 * client: company ids are a database's own (the tests' databases share them within one process).
 */
const sizes = new WeakMap<object, Map<number, { size: number; until: number }>>();
const SIZE_TTL_MS = 60_000;

/**
 * How many of a company's work orders the bitmaps hold: the docs of its status terms (every indexed work
 * order has exactly one), read at most once a minute per process; a company that grows past a threshold
 * is seen within a minute, and either answer is exact.
 */
export async function indexedWorkOrders(ctx: Pick<Context, "db" | "now">, companyId: number): Promise<number> {
  const now = ctx.now().getTime();
  const companies = sizes.get(ctx.db) ?? new Map<number, { size: number; until: number }>();
  sizes.set(ctx.db, companies);
  const known = companies.get(companyId);
  if (known && known.until > now) return known.size;
  const [{ size }] = await ctx.db.$queryRaw<{ size: number }[]>`
    SELECT coalesce(sum(docs), 0)::int AS size FROM "WorkOrderSearchTerm"
     WHERE "buyerCompanyId" = ${companyId} AND ${ofKind(TERM.status)}`;
  if (companies.size >= 10_000) companies.clear();
  companies.set(companyId, { size, until: now + SIZE_TTL_MS });
  return size;
}

/**
 * count_by of a buyer's list (with or without search and filters) grouped on a status or facet, as
 * {value, count} with count > 0, typed and ordered as the GIN path answers, the null group (no supplier
 * facility) last; null for the GIN path. Each group is its term's bits ANDed with the query's (without a
 * search or filter, the dictionary's count; with a status filter only, the dictionary's counts of the
 * facet under those statuses), corrected by the pending rows as the count is: their indexed value out,
 * their live row in.
 */
export async function bitmapCountBy(
  ctx: Context,
  query: BitmapQuery,
  groupBy: string,
  { fewMatches = FEW_MATCHES }: { fewMatches?: number } = {},
): Promise<RawJson<CountGroup[]> | null> {
  if (!Object.hasOwn(GROUPS, groupBy)) return null;
  const { kind, old, type } = GROUPS[groupBy];
  const column = Prisma.raw(`w."${groupBy}"`);
  const groups = groupsOf(await analysisOf(ctx, query), query);
  if (!groups) return null;
  const terms = sql`SELECT term, docs, bitmapped FROM "WorkOrderSearchTerm"
     WHERE "buyerCompanyId" = ${query.companyId} AND ${ofKind(kind)}`;
  const oldValue = Prisma.raw(`x."${old}"`);
  // Pending work orders: their indexed value (those with a doc) out, their live row's value in.
  const fixes = sql`SELECT ${oldValue}::text, -count(*) FROM old x WHERE ${oldValue} IS NOT NULL GROUP BY 1
    UNION ALL SELECT ${column}::text, count(*) FROM pending p JOIN "WorkOrder" w ON w.id = p.id
               WHERE ${query.where} AND ${column} IS NOT NULL GROUP BY 1`;
  if (!groups.length) {
    // Every work order of the company: the dictionary's counts, corrected by the pending rows.
    if (await tooManyPending(ctx, query.companyId)) return null;
    return groupRows(
      ctx,
      sql`WITH ${companyTotalCtes(query)}, ${grouped(sql`SELECT substr(term, 2), docs FROM (${terms}) t`, fixes, type)}`,
    );
  }
  if (query.statuses && groups.length === 1 && !query.facets.length && kind !== TERM.status) {
    // A status filter only: the dictionary's counts of the facet under each status (TERM.statusFacet),
    // corrected by the pending rows, instead of every matching row (a location's per status at 1M: 0.4 s).
    if (await tooManyPending(ctx, query.companyId)) return null;
    const low = query.statuses.map((status) => `${TERM.statusFacet}${status} ${kind}`);
    const high = low.map((prefix) => prefix.slice(0, -1) + String.fromCharCode(kind.charCodeAt(0) + 1));
    // One row per value and status: summed per value (a single status's are one per value already).
    const counted = sql`SELECT substr(t.term, length(p.low) + 1) COLLATE "C", sum(t.docs)::int
        FROM unnest(${low}::text[], ${high}::text[]) p (low, high)
        JOIN "WorkOrderSearchTerm" t ON t."buyerCompanyId" = ${query.companyId}
         AND t.term >= p.low COLLATE "C" AND t.term < p.high COLLATE "C"
       GROUP BY 1`;
    return groupRows(ctx, sql`WITH ${companyTotalCtes(query, query.statuses)}, ${grouped(counted, fixes, type)}`);
  }
  const expansion = await expand(ctx, query.companyId, groups);
  if (!expansion) return null;
  const planned = resolve(groups, expansion);
  if (planned.confirm || matchBound(planned.groups, expansion) < fewMatches) return null;
  // A value in a rare term has no bits to AND: the GIN path groups those.
  const [{ rare }] = await ctx.db.$queryRaw<{ rare: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM (${terms}) t WHERE docs > 0 AND NOT bitmapped) AS rare`;
  if (rare) return null;
  const ctes = bitmapCtes(query.companyId, planned.groups, expansion);
  return groupRows(
    ctx,
    sql`
    WITH ${ctes}, terms AS (${terms}),
    old AS (SELECT x.*, d.ordinal FROM pending p JOIN "WorkOrderSearchPending" x ON x."workOrderId" = p.id
              JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = p.id JOIN q ON q.chunk = d.ordinal / ${CHUNK}
             WHERE get_bit(q.bits, d.ordinal % ${CHUNK}) = 1),
    total AS (
      SELECT (SELECT coalesce(sum(bit_count(bits)), 0) FROM q) - (SELECT count(*) FROM old)
           + ${pendingMatching(query)} AS n
    ),
    ${grouped(
      sql`SELECT substr(b.term, 2), sum(bit_count(b.bits & q.bits))
            FROM terms t JOIN "WorkOrderSearchBitmap" b ON b."buyerCompanyId" = ${query.companyId} AND b.term = t.term COLLATE "C"
            JOIN q ON q.chunk = b.chunk
           GROUP BY b.term`,
      fixes,
      type,
    )}`,
  );
}

/**
 * Whether a page starts at a block (blockStartCtes): undefined, as the service chooses (deep pages); true,
 * wherever a block may start it; false, never; "only" (tests): wherever a block may start it, and null where none may.
 */
type Blocks = boolean | "only" | undefined;

/**
 * The exact bits' page in the query's order: by priority run by run, by createdAt from a block's key when
 * deep, by location name under a status filter alone run by run of names (unless `nameRuns` is false).
 */
function pageInOrder(
  query: BitmapQuery,
  page: Sql,
  options: { decodeLimit: number; walkRuns?: boolean; blocks: Blocks; nameRuns?: boolean },
): Sql {
  if (query.walk.by === "woPriority") return priorityPageSql(query, page, options);
  if (query.walk.by === "locationName" && query.statuses && !query.facets.length && !query.search.trim()) {
    const runs = locationNameRunsSql(query, query.statuses);
    if (options.nameRuns !== undefined) return options.nameRuns ? runs : page;
    // Counting the names' runs costs about what a walk of NAME_RUNS_WALKED docs does.
    if (query.skip < NAME_RUNS_FROM) return page;
    return sql`CASE WHEN ${query.skip + query.take}::bigint * c.docs > ${NAME_RUNS_WALKED}::bigint * c.count
                    THEN ${runs} ELSE ${page} END`;
  }
  if (query.walk.by === "createdAt" && (options.blocks ?? query.skip >= ORDINAL_BLOCK))
    return createdAtPageSql(query, options.blocks === "only" ? sql`NULL::int[]` : page);
  return page;
}

/**
 * The page and exact total of a buyer's search, or null for the GIN path. Four statements at most:
 * analysis and dictionary (small), the count (bitmaps, corrected by the pending rows), then the page.
 * In every sort_by order the page comes from the docs alone (docPageSql), in the count's statement; a
 * walk is expected to test (offset + limit) × work orders ÷ matches rows. Matches that must be confirmed
 * (a phrase's pairs) read the candidates' rows (up to SORT_LIMIT).
 */
export async function bitmapSearch(
  ctx: Context,
  query: BitmapQuery,
  options: {
    countOnly?: boolean;
    decodeLimit?: number;
    fewMatches?: number;
    tripleCandidates?: number;
    walkRuns?: boolean;
    /** Pages by createdAt and in a priority's run from a block (Blocks). */
    blocks?: Blocks;
    /** A page by location name under a status filter alone: true run by run of names, false walked (tests). */
    nameRuns?: boolean;
  } = {},
): Promise<{ ids: number[]; count: number } | null> {
  const decodeLimit = options.decodeLimit ?? DECODE_LIMIT;
  const groups = groupsOf(await analysisOf(ctx, query), query);
  if (!groups?.length) return null;
  const expansion = await expand(ctx, query.companyId, groups);
  if (!expansion) return null;
  const planned = resolve(groups, expansion);
  if (!query.search.trim() && matchBound(planned.groups, expansion) < (options.fewMatches ?? FEW_MATCHES)) return null;
  const ctes = bitmapCtes(query.companyId, planned.groups, expansion);
  const counted = sql`((SELECT coalesce(sum(bit_count(bits)), 0) FROM q)
          - (SELECT count(*) FROM pending p JOIN "WorkOrderSearchDoc" d ON d."workOrderId" = p.id
               JOIN q ON q.chunk = d.ordinal / ${CHUNK} WHERE get_bit(q.bits, d.ordinal % ${CHUNK}) = 1)
          + ${pendingMatching(query)})::int`;
  // Exact bits: count and page in one statement (q computed once), the page walked or decoded as the
  // count and the company's size decide (only the branch taken runs), in the order's own way (pageInOrder).
  if (!planned.confirm && !options.countOnly) {
    const page = sql`CASE WHEN c.count > ${decodeLimit} OR ${walkPays(query.skip + query.take, sql`c.count`, sql`c.docs`)}
      THEN (${docPageSql(query, { walked: BIT_SET })}) ELSE (${docPageSql(query, { read: DECODED })}) END`;
    const [found] = await ctx.db.$queryRaw<{ ids: number[]; count: number }[]>`
      WITH ${ctes}, ${BITMAP}, counted AS MATERIALIZED (
        SELECT ${counted} AS count,
               (SELECT coalesce(max(ordinal) + 1, 0) FROM "WorkOrderSearchDoc" WHERE "buyerCompanyId" = ${query.companyId})::bigint AS docs
      )
      SELECT c.count,
             CASE WHEN c.count <= ${query.skip} THEN ARRAY[]::int[]
                  ELSE ${pageInOrder(query, page, { decodeLimit, walkRuns: options.walkRuns, blocks: options.blocks, nameRuns: options.nameRuns })} END AS ids
        FROM counted c`;
    return found;
  }
  const [{ count }] = await ctx.db.$queryRaw<{ count: number }[]>`WITH ${ctes} SELECT ${counted} AS count`;
  // Candidates past what is cheap to confirm: the phrase's triples are asked for (the indexer builds them).
  if (planned.confirm && count > (options.tripleCandidates ?? TRIPLE_CANDIDATES) && planned.missing.length) {
    await ctx.db.$executeRaw`INSERT INTO "WorkOrderSearchPhrase" ("buyerCompanyId", term)
                             SELECT ${query.companyId}, unnest(${planned.missing}::text[]) ON CONFLICT DO NOTHING`;
  }
  if (!planned.confirm) return { ids: [], count };
  if (count > SORT_LIMIT) return null;
  // Candidates: their rows, confirmed by the search's own condition and sorted (pending ones among them).
  const [page] = await ctx.db.$queryRaw<{ ids: number[]; count: number }[]>`
    WITH ${ctes}, candidates AS (
      SELECT d."workOrderId" AS id FROM "WorkOrderSearchDoc" d
       WHERE d."buyerCompanyId" = ${query.companyId}
         AND ${DECODED}
      UNION
      SELECT id FROM pending
    ), m AS MATERIALIZED (
      SELECT w.id, w."createdAt", w."woPriority", w."locationId" FROM "WorkOrder" w
       WHERE w.id = ANY(ARRAY(SELECT id FROM candidates)) AND w."buyerCompanyId" = ${query.companyId} AND ${query.where}
    )
    SELECT ARRAY(SELECT w.id FROM m w ORDER BY ${query.order} LIMIT ${query.take} OFFSET ${query.skip}) AS ids,
           (SELECT count(*) FROM m)::int AS count`;
  return page;
}
