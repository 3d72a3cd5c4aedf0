// The search index's vocabulary, defined once for TypeScript and SQL: the kinds of term (the first
// character of WorkOrderSearchTerm.term and WorkOrderSearchBitmap.term) and how many ordinals one bitmap
// row covers. bitmaps.ts reads them here; the SQL sources (sql/*.sql) name them as {{TERM_WORD}},
// {{CHUNK_BITS}} …, which scripts/search-migration.ts fills in from here when it writes the migration.

/** Term kinds by their prefix (work_order_search_terms, work_order_search_triples in sql/terms.sql). */
export const TERM = {
  /** `w` + a lexeme of the vector. */
  word: "w",
  /** `p` + two lexemes at adjacent positions, space-separated. */
  pair: "p",
  /** `q` + two lexemes two positions apart (a stop word between), space-separated. */
  gapPair: "q",
  /** `s` + the work order's status. */
  status: "s",
  /** `t` + the two gaps (1 or 2) + three lexemes, space-separated; kept only once a search asked for it. */
  triple: "t",
  /** `l` + the work order's locationId (a facet: filter-only lists and counts, #29). */
  location: "l",
  /** `f` + its supplierFacilityId, when it has one. */
  supplierFacility: "f",
  /** `y` + its problemTypeId. */
  problemType: "y",
  /** `m` + its plannedMaintenanceScheduleId, when it has one (a count_by group only). */
  pmSchedule: "m",
  /** `i` + its isPM, `true` or `false` (a count_by group only). */
  isPM: "i",
  /** `a` + its (main) assetId, when it has one (a count_by group only). */
  asset: "a",
  /** `b` + its buyerFacilityId (a count_by group only). */
  buyerFacility: "b",
  /**
   * `r` + its woPriority, when it has one: the runs of a page by woPriority (bitmaps.ts priorityPageSql
   * counts each run's matches and walks only the runs the page lands in). Neither a filter nor a group.
   */
  priority: "r",
  /**
   * `x` + its status + a space + one of its facet terms above (`xOpen l12`): the dictionary's count of a
   * facet's work orders per status, for count_by with a status filter only; never given bitmaps.
   */
  statusFacet: "x",
} as const;

/**
 * The list filters answered from facet terms (work_order_search_facets in sql/terms.sql), by the term kind
 * and the column each holds. A rare facet term (no bitmap) is read through the column's own btree index.
 */
export const FACETS = {
  locationId: TERM.location,
  supplierFacilityId: TERM.supplierFacility,
  problemTypeId: TERM.problemType,
} as const;

/**
 * The count_by groups answered from facet terms: the filter facets and columns whose list filter means
 * something else (assetId also matches sub-assets; buyerFacilityId does not narrow) or is not an id
 * (isPM), so that they are counted from the dictionary and bitmaps but filtered on the GIN path. The
 * pending table keeps each one's indexed value as `old` + the column's name capitalized.
 */
export const GROUP_FACETS = {
  ...FACETS,
  plannedMaintenanceScheduleId: TERM.pmSchedule,
  isPM: TERM.isPM,
  assetId: TERM.asset,
  buyerFacilityId: TERM.buyerFacility,
} as const;

/**
 * Ordinals per bitmap row: WorkOrderSearchBitmap.bits holds exactly this many bits. The column is
 * VARBIT(8192) (migration 20261206090000), so a change here needs that column changed and the index rebuilt.
 */
export const CHUNK_BITS = 8192;

/**
 * Ordinals per block of WorkOrderSearchBlock (each block's createdAt and workOrderId bounds): a divisor of
 * CHUNK_BITS, so a block's bits are one substring of one chunk. A change needs the table rebuilt
 * (work_order_search_rebuild).
 */
export const ORDINAL_BLOCK = 1024;
