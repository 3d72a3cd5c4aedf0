// The search text (`search=`, docs/work-order-search.md "Search"): split into words and "phrases"
// (parseSearch, also read by bitmaps.ts), and turned into the tsquery condition of the GIN path
// (searchSql). bitmaps.ts answers the same words and phrases from the bitmap postings with the same
// meaning; the property test holds both to one reference.
import { Prisma } from "../../../db.ts";
import { badInput } from "../../core/errors.ts";

const sql = Prisma.sql;
type Sql = Prisma.Sql;

/** Longer search text is refused rather than silently cut (it would change the meaning). */
const MAX_SEARCH_LENGTH = 500;

export const SEARCH_HELP =
  'Words match by prefix and stem across title, description, location, problem type, notes, service call notes and reference numbers; "quoted text" must match as a phrase';

/**
 * The user's search text as safe tsquery parts: quoted "phrases" (exact phrase) and words (prefix and
 * stem). Only letters, digits and the characters that occur inside tokens (e-mails, part and PO
 * numbers) survive, so no input can produce tsquery syntax; each word is then quoted as one lexeme.
 */
export function parseSearch(text: string): { words: string[]; phrases: string[] } {
  const clean = (s: string) => s.replace(/[^\p{L}\p{N}@._-]+/gu, " ").trim();
  const meaningful = (s: string) => /[\p{L}\p{N}]/u.test(s);
  const phrases: string[] = [];
  const rest = text.replace(/"([^"]*)"/g, (_, phrase: string) => (phrases.push(clean(phrase)), " "));
  return { words: clean(rest).split(/\s+/).filter(meaningful), phrases: phrases.filter(meaningful) };
}

/** tsquery text → tsquery, with the `:*` of one- and two-character lexemes removed. */
const shortLexemesExact = (tsqueryText: Sql) =>
  sql`regexp_replace(${tsqueryText}, ${"'([^']{1,2})':\\*"}, ${"'\\1'"}, 'g')::tsquery`;

/**
 * One word as a prefix query under one configuration (the parser splits codes such as PO-100042 into
 * several lexemes). Lexemes of one or two characters match exactly: as prefixes they would expand to
 * a large part of the index ('po':* is half of it once PO numbers are indexed) for no useful match.
 */
const prefixQuery = (config: "english" | "simple", word: string) =>
  shortLexemesExact(sql`to_tsquery(${Prisma.raw(`'${config}'`)}, ${`'${word}':*`})::text`);

/**
 * A word the parser keeps whole (plain words, hyphenated words such as walk-in, e-mails): its English
 * stem exactly (`leaking` finds leak, leaks, leaked) or the word as typed as a prefix (`compres` finds
 * compressor, and `escalat` escalation through its '#escalation' prefix lexeme), one lexeme each; only
 * the prefix when stemming changes nothing. The stem is not a prefix itself: `leak:*` would also match
 * leakage and, worse, make the GIN index expand every lexeme starting with a common stem before it can
 * intersect the words. A hyphenated word is its whole lexeme only: to_tsquery would add its parts as a
 * phrase, and the index would expand a common part ('walk':*) to confirm what 'walk-in' decides. What
 * both cost is measured in docs/performance.md, "Search: the figures behind the code".
 * An English stop word (`not`) is in no vector, so it drops out: its query is empty, which && ignores.
 */
function wholeWordQuery(word: string): Sql {
  const lexeme = sql`lower(${word})`;
  const stem = sql`(ts_lexize('english_stem', ${lexeme}))[1]`;
  // The typed word as a prefix of the English lexemes and, from three characters on, of the words
  // indexed for prefixes ('#escalation', vector.ts): `escalat` finds escalation, whose stem is escal.
  // One- and two-character words stay exact (shortLexemesExact); no word that short is marked.
  const typed = sql`(CASE WHEN length(${lexeme}) > 2
                          THEN (quote_literal(${lexeme}) || ':*')::tsquery || (quote_literal('#' || ${lexeme}) || ':*')::tsquery
                          ELSE ${shortLexemesExact(sql`quote_literal(${lexeme}) || ':*'`)} END)`;
  return sql`(CASE WHEN ${stem} IS NULL THEN to_tsquery('english', ${`'${word}'`})
                   WHEN ${stem} = ${lexeme} THEN ${typed}
                   ELSE quote_literal(${stem})::tsquery || ${typed} END)`;
}

/**
 * One word. Words the parser splits (reference numbers: PO-100042 → po, -100042) keep the parsed query:
 * the English reading exactly or the simple one as a prefix, only the prefix when they agree.
 */
function wordQuery(word: string): Sql {
  const typed = prefixQuery("simple", word);
  const split = sql`(CASE WHEN ${prefixQuery("english", word)} = ${typed} THEN ${typed} ELSE to_tsquery('english', ${`'${word}'`}) || ${typed} END)`;
  return sql`(CASE WHEN lower(${word}) = ANY(tsvector_to_array(to_tsvector('simple', ${word}))) THEN ${wholeWordQuery(word)} ELSE ${split} END)`;
}

/**
 * The search condition of the GIN path: every word must match (wordQuery; the vector holds English stems
 * for text and simple tokens for reference numbers); every phrase must match as a phrase under either
 * configuration. Null when the text has nothing to search for.
 */
export function searchSql(text: string | null | undefined): Sql | null {
  if (!text?.trim()) return null;
  if (text.length > MAX_SEARCH_LENGTH) throw badInput(`search is limited to ${MAX_SEARCH_LENGTH} characters`);
  const { words, phrases } = parseSearch(text);
  // Both configurations, but only once when they agree: every operand is one more scan of the GIN index.
  const either = (english: Sql, simple: Sql) =>
    sql`(CASE WHEN ${english} = ${simple} THEN ${english} ELSE ${english} || ${simple} END)`;
  const parts = [
    ...words.map(wordQuery),
    ...phrases.map((phrase) =>
      either(sql`phraseto_tsquery('english', ${phrase})`, sql`phraseto_tsquery('simple', ${phrase})`),
    ),
  ];
  return parts.length ? sql`w."searchVector" @@ (${Prisma.join(parts, " && ")})` : null;
}
