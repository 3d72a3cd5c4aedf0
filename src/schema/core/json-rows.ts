// Rows of a model, with the relations a Prisma query includes, read as JSON by the statement that picks
// them, in the shape Prisma's findMany gives (Date, Decimal, BigInt), so Pothos resolves them as if Prisma
// had loaded them: the read path of every offset list (list.ts findPage, the work order list;
// docs/performance.md "Rows read as JSON"). Prisma's reading of rows, value by value, and its second
// statement for the total were most of a list request's cost.
//
// It answers only what it can answer exactly, and says so by returning undefined (the caller asks
// Prisma): `include` or `select` of columns and of relations (to-one by their foreign key, lists by the
// key that points back), nested, each relation at most filtered (`where`, below), ordered by its own
// columns and windowed (`take`/`skip` with an order); and `where` made of column equality, `in`, `not`
// on required columns, AND/OR, a to-one relation's condition and a list's `some`. Values are typed
// against the column (a value Prisma would refuse is left to Prisma, which refuses it).
import { type Db, hasSqlPool, Prisma, sqlRows } from "../../db.ts";
import * as Enums from "../../generated/prisma/enums.ts";
import { DATAMODEL } from "./datamodel.ts";
import { decimalFromText } from "./values.ts";

type Sql = Prisma.Sql;
const sql = Prisma.sql;
const raw = Prisma.raw;

export interface ModelField {
  name: string;
  type: string;
  kind: string;
  isList: boolean;
  isId: boolean;
  isRequired: boolean;
  relationName?: string;
  relationFromFields?: string[];
}

const MODELS = DATAMODEL.datamodel.models as unknown as Record<string, { fields: ModelField[] }>;
const ENUMS = Enums as unknown as Record<string, Record<string, string> | undefined>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);

/** The datamodel's field `name` of `model`. */
export const modelField = (model: string, name: string) => MODELS[model]?.fields.find((f) => f.name === name);

/** The model's one id column (every relation of the schema references it). */
function idOf(model: string): string | undefined {
  const ids = MODELS[model]?.fields.filter((f) => f.isId) ?? [];
  return ids.length === 1 ? ids[0].name : undefined;
}

/**
 * Values whose JSON form is not Prisma's: timestamps (milliseconds since the epoch, or text in a list),
 * Decimal and BigInt (sent as text: a JSON number would lose digits).
 */
const CONVERT: Record<string, (v: string | number) => unknown> = {
  // timestamptz comes with its offset; a timestamp without one is UTC for Prisma; a date is midnight UTC.
  DateTime: (v) =>
    new Date(typeof v === "number" || /[zZ]$|[+-]\d\d(:?\d\d)?$/.test(v) || v.length === 10 ? v : `${v}Z`),
  Decimal: (v) => decimalFromText(v as string),
  BigInt: (v) => BigInt(v),
};

/** A model's scalar and enum fields: the columns Prisma selects for an include. */
const scalarFields = (model: string) => MODELS[model].fields.filter((f) => f.kind === "scalar" || f.kind === "enum");

/**
 * The column `field` of the row at `alias`; Decimal and BigInt as text; a timestamp as its milliseconds
 * since the epoch (rounded down, as a Date reads a finer text), which makes a Date four times faster than
 * its text does.
 */
function columnOf(field: ModelField, alias: string): string {
  const column = `${alias}."${field.name}"`;
  if (field.type === "DateTime" && !field.isList)
    return `floor(extract(epoch FROM ${column}) * 1000)::bigint AS "${field.name}"`;
  return field.type === "Decimal" || field.type === "BigInt"
    ? `${column}::text${field.isList ? "[]" : ""} AS "${field.name}"`
    : column;
}

type Converter = (row: Record<string, unknown>) => void;

interface RelationNode {
  name: string;
  list: boolean;
  /** The relation's value for the row at `alias`, as a select-list item named after it. */
  sql(alias: string): Sql;
  convert?: Converter;
}

/** Turns a row's JSON values into Prisma's (CONVERT, NULL lists as []), its relations' too; undefined when nothing needs it. */
function converterOf(fields: ModelField[], relations: RelationNode[]): Converter | undefined {
  const own = fields
    .filter((f) => CONVERT[f.type] || f.isList)
    .map((f) => ({ name: f.name, list: f.isList, convert: CONVERT[f.type] }));
  const nested = relations.filter((r) => r.convert);
  if (!own.length && !nested.length) return undefined;
  return (row) => {
    for (const { name, list, convert } of own) {
      const value = row[name];
      // A NULL scalar list is [] for Prisma.
      if (list) row[name] = value === null ? [] : convert ? (value as string[]).map(convert) : value;
      else if (value !== null) row[name] = convert!(value as string | number);
    }
    for (const { name, list, convert } of nested) {
      const value = row[name];
      if (list) for (const child of value as Record<string, unknown>[]) convert!(child);
      else if (value !== null) convert!(value as Record<string, unknown>);
    }
  };
}

/** `{field: "asc"}` or a list of those, on the model's own columns; otherwise undefined. */
export function orderSql(model: string, alias: string, orderBy: unknown): string | undefined {
  const terms = Array.isArray(orderBy) ? orderBy : [orderBy];
  const parts: string[] = [];
  for (const term of terms) {
    const entries = isObject(term) ? Object.entries(term) : [];
    if (entries.length !== 1) return undefined;
    const [[name, direction]] = entries;
    const field = modelField(model, name);
    if (!field || field.kind === "object" || field.isList || (direction !== "asc" && direction !== "desc"))
      return undefined;
    parts.push(`${alias}."${name}" ${direction.toUpperCase()}`);
  }
  return parts.length ? parts.join(", ") : undefined;
}

/** An orderSql order the other way round (each key's direction flipped; NULLs move with it, as Prisma's do). */
const reversedOrder = (order: string) =>
  order
    .split(", ")
    .map((term) => (term.endsWith(" ASC") ? `${term.slice(0, -4)} DESC` : `${term.slice(0, -5)} ASC`))
    .join(", ");

/** How a relation joins: the related model, whether it is a list, and the condition on a related row at `child`. */
export function relationJoin(model: string, field: ModelField) {
  if (field.kind !== "object") return undefined;
  const target = field.type;
  if (!field.isList && field.relationFromFields?.length === 1) {
    const id = idOf(target);
    const key = field.relationFromFields[0];
    return (
      id && {
        model: target,
        list: false,
        on: (parent: string, child: string) => `${child}."${id}" = ${parent}."${key}"`,
      }
    );
  }
  const back = MODELS[target]?.fields.find(
    (f) =>
      f !== field && f.kind === "object" && f.relationName === field.relationName && f.relationFromFields?.length === 1,
  );
  const id = idOf(model);
  if (!field.isList || !back || !id) return undefined;
  const key = back.relationFromFields![0];
  return { model: target, list: true, on: (parent: string, child: string) => `${child}."${key}" = ${parent}."${id}"` };
}

// ---- where

/** A filter value as the column's parameter; undefined when its type is not the column's (Prisma's to refuse). */
function paramOf(field: ModelField, value: unknown): unknown {
  switch (field.kind === "enum" ? "enum" : field.type) {
    case "Int":
      return Number.isInteger(value) && Math.abs(value as number) <= 2_147_483_647 ? value : undefined;
    case "String":
      return typeof value === "string" ? value : undefined;
    case "Boolean":
      return typeof value === "boolean" ? value : undefined;
    case "enum":
      return typeof value === "string" && ENUMS[field.type]?.[value] === value ? value : undefined;
    case "DateTime":
      // As text with its zone: a timestamp without one reads it as UTC, as Prisma writes it.
      return value instanceof Date && !Number.isNaN(value.getTime()) ? value.toISOString() : undefined;
    default:
      return undefined;
  }
}

const COMPARISONS: Record<string, string> = { gt: ">", gte: ">=", lt: "<", lte: "<=" };

function scalarWhere(alias: string, field: ModelField, condition: unknown): Sql | undefined {
  if (field.isList) return undefined;
  const column = raw(`${alias}."${field.name}"`);
  const equal = (value: unknown) => {
    if (value === null) return sql`${column} IS NULL`;
    const param = paramOf(field, value);
    return param === undefined ? undefined : sql`${column} = ${param}`;
  };
  if (!isObject(condition)) return equal(condition);
  const parts: (Sql | undefined)[] = [];
  for (const [operator, operand] of Object.entries(condition)) {
    if (operand === undefined) continue;
    if (operator === "equals") parts.push(equal(operand));
    else if (operator === "in") {
      if (!Array.isArray(operand)) return undefined;
      const values = operand.map((v) => paramOf(field, v));
      if (values.some((v) => v === undefined)) return undefined;
      parts.push(values.length ? sql`${column} = ANY(${values})` : sql`FALSE`);
    } else if (operator === "not") {
      // On a nullable column Prisma's `not` has its own NULL rules: left to Prisma.
      if (operand === null) parts.push(sql`${column} IS NOT NULL`);
      else if (!field.isRequired || isObject(operand)) return undefined;
      else {
        const param = paramOf(field, operand);
        if (param === undefined) return undefined;
        parts.push(sql`${column} <> ${param}`);
      }
    } else if (operator in COMPARISONS) {
      // Order comparisons (a keyset page's bound) on numbers and times, which compare alike in SQL.
      const param = field.type === "Int" || field.type === "DateTime" ? paramOf(field, operand) : undefined;
      if (param === undefined) return undefined;
      parts.push(sql`${column} ${raw(COMPARISONS[operator])} ${param}`);
    } else return undefined;
  }
  return parts.some((p) => p === undefined) ? undefined : all(parts as Sql[]);
}

const all = (parts: Sql[]) => (parts.length ? sql`(${Prisma.join(parts, " AND ")})` : sql`TRUE`);

function relationWhere(model: string, alias: string, field: ModelField, condition: unknown, depth: number) {
  const relation = relationJoin(model, field);
  if (!relation || !isObject(condition)) return undefined;
  const keys = Object.keys(condition);
  let inner: unknown = condition;
  if (relation.list) {
    if (keys.length !== 1 || keys[0] !== "some") return undefined;
    inner = condition.some;
  } else if (keys.includes("is") || keys.includes("isNot")) {
    if (keys.length !== 1 || keys[0] !== "is") return undefined;
    inner = condition.is;
  }
  const related = `r${depth}`;
  const where = whereSql(relation.model, related, inner, depth + 1);
  return (
    where &&
    sql`EXISTS (SELECT 1 FROM ${raw(`"${relation.model}" ${related}`)} WHERE ${raw(relation.on(alias, related))} AND ${where})`
  );
}

/** A Prisma `where` over the row at `alias` as SQL, or undefined when it uses what this does not translate. */
export function whereSql(model: string, alias: string, where: unknown, depth = 1): Sql | undefined {
  if (!isObject(where)) return undefined;
  const parts: Sql[] = [];
  for (const [key, condition] of Object.entries(where)) {
    if (condition === undefined) continue;
    let part: Sql | undefined;
    if (key === "AND" || key === "OR") {
      const items = Array.isArray(condition) ? condition : key === "AND" ? [condition] : [];
      const each = items.map((item) => whereSql(model, alias, item, depth));
      // OR [] matches nothing for Prisma; not worth a translation of its own.
      if (!each.length && key === "OR") return undefined;
      if (each.some((p) => p === undefined)) return undefined;
      part = key === "AND" ? all(each as Sql[]) : sql`(${Prisma.join(each as Sql[], " OR ")})`;
    } else {
      const field = modelField(model, key);
      if (!field) return undefined;
      part =
        field.kind === "object"
          ? relationWhere(model, alias, field, condition, depth)
          : scalarWhere(alias, field, condition);
    }
    if (!part) return undefined;
    parts.push(part);
  }
  return all(parts);
}

// ---- rows

interface RowNode {
  /** The JSON object of the row at `alias`. */
  json(alias: string): Sql;
  convert?: Converter;
}

const isCount = (n: unknown) => Number.isInteger(n) && (n as number) >= 0;

/** A relation of the row: a to-one's row or null, a list's rows as an array, each shaped by its own selection. */
function relationNode(model: string, field: ModelField, value: unknown, depth: number): RelationNode | undefined {
  const relation = relationJoin(model, field);
  const options = value === true ? {} : value;
  if (!relation || !isObject(options)) return undefined;
  const { where, orderBy, take, skip, ...selection } = options;
  const child = `c${depth}`;
  const node = rowNode(relation.model, selection, depth);
  const condition = where === undefined ? sql`TRUE` : whereSql(relation.model, child, where, depth + 1);
  if (!node || !condition) return undefined;
  const from = (alias: string) =>
    sql`FROM ${raw(`"${relation.model}" ${child}`)} WHERE ${raw(relation.on(alias, child))} AND ${condition}`;
  const name = raw(`"${field.name}"`);
  if (!relation.list) {
    if (orderBy !== undefined || take !== undefined || skip !== undefined) return undefined;
    return {
      name: field.name,
      list: false,
      sql: (alias) => sql`(SELECT ${node.json(child)} ${from(alias)}) AS ${name}`,
      convert: node.convert,
    };
  }
  const order = orderBy === undefined ? undefined : orderSql(relation.model, child, orderBy);
  if (orderBy !== undefined && !order) return undefined;
  if (take === undefined && skip === undefined) {
    const ordered = raw(order ? ` ORDER BY ${order}` : "");
    return {
      name: field.name,
      list: true,
      sql: (alias) => sql`(SELECT coalesce(json_agg(${node.json(child)}${ordered}), '[]') ${from(alias)}) AS ${name}`,
      convert: node.convert,
    };
  }
  // A window of the list (a connection's page): only in a declared order. A negative take is Prisma's
  // "the last rows": the window is taken in the reversed order and handed back in the declared one.
  if (!order || !Number.isInteger(take ?? 0) || !isCount(skip ?? 0)) return undefined;
  const backward = ((take as number | undefined) ?? 0) < 0;
  const size = take === undefined ? undefined : Math.abs(take as number);
  return {
    name: field.name,
    list: true,
    sql: (alias) =>
      sql`${windowJson(node.json(child), from(alias), order, { backward, take: size, skip: (skip as number) ?? 0 }, `w${depth}`)} AS ${name}`,
    convert: node.convert,
  };
}

/**
 * The JSON array of `item` over the rows `from` selects, in `order` (orderSql's): a window of `take` rows
 * (all when undefined) after `skip`, taken from the end when `backward` (Prisma's negative take, a
 * connection's `last`) and handed back in `order` either way. `window` names the subquery. Written without
 * spaces (json_agg writes ", " and a line break between items), as JSON.stringify would: a row's JSON may
 * go into a GraphQL answer as it is (statement-answers.ts RowsAnswer.asText).
 */
export function windowJson(
  item: Sql,
  from: Sql,
  order: string,
  { backward, take, skip }: { backward: boolean; take: number | undefined; skip: number },
  window: string,
): Sql {
  const walk = backward ? reversedOrder(order) : order;
  const limit = take === undefined ? sql`` : sql` LIMIT ${take}`;
  return sql`(SELECT coalesce(array_to_json(array_agg(${raw(`${window}.j ORDER BY ${window}.n${backward ? " DESC" : ""}`)})), '[]') FROM (SELECT ${item} AS j,
            row_number() OVER (ORDER BY ${raw(walk)}) AS n ${from} ORDER BY ${raw(walk)}${limit} OFFSET ${skip}) ${raw(window)})`;
}

/** The row of `model` with what `selection` ({include} or {select}, or neither: every column) asks for. */
function rowNode(model: string, selection: Record<string, unknown>, depth: number): RowNode | undefined {
  const { include, select, ...rest } = selection;
  if (Object.keys(rest).length || (include !== undefined && select !== undefined)) return undefined;
  const entries = select ?? include ?? {};
  if (!isObject(entries)) return undefined;
  const columns = select === undefined ? scalarFields(model) : [];
  const relations: RelationNode[] = [];
  for (const [name, value] of Object.entries(entries)) {
    if (value === false || value === undefined) continue;
    const field = modelField(model, name);
    if (!field) return undefined;
    if (field.kind === "object") {
      const relation = relationNode(model, field, value, depth + 1);
      if (!relation) return undefined;
      relations.push(relation);
    } else if (select !== undefined && value === true) columns.push(field);
    else return undefined;
  }
  if (!columns.length && !relations.length) return undefined;
  const object = `o${depth}`;
  const built = new Map<string, Sql>();
  return {
    json(alias) {
      let text = built.get(alias);
      if (!text) {
        const items = [...columns.map((f) => raw(columnOf(f, alias))), ...relations.map((r) => r.sql(alias))];
        text = sql`(SELECT to_json(${raw(object)}) FROM (SELECT ${Prisma.join(items, ", ")}) ${raw(object)})`;
        built.set(alias, text);
      }
      return text;
    },
    convert: converterOf(columns, relations),
  };
}

export interface RowReader {
  /** The JSON of the row of `model` at `alias`, with its included relations. */
  json(alias: string): Sql;
  /** Turns parsed JSON rows into Prisma's values, in place. */
  read<T>(rows: unknown[]): T[];
}

function buildReader(model: string, query: object): RowReader | undefined {
  if (!MODELS[model] || !isObject(query)) return undefined;
  const node = rowNode(model, query, 0);
  if (!node) return undefined;
  const { convert } = node;
  return {
    json: (alias) => node.json(alias),
    read<T>(rows: unknown[]) {
      if (convert) for (const row of rows) convert(row as Record<string, unknown>);
      return rows as T[];
    },
  };
}

const readers = new Map<string, RowReader | null>();

/** The reader of `model` rows for a Prisma query (pageQuery's), or undefined when only Prisma can load it. */
export function rowReader(model: string, query: object): RowReader | undefined {
  const key = `${model} ${JSON.stringify(query)}`;
  let reader = readers.get(key);
  if (reader === undefined) {
    reader = buildReader(model, query) ?? null;
    // Selections are finite (relation names), but a bound keeps a stream of odd queries from growing it.
    if (readers.size >= 1_000) readers.clear();
    readers.set(key, reader);
  }
  return reader ?? undefined;
}

/** A Prisma model delegate as the lists call it: Prisma's reads, and its model and client. */
export interface Delegate {
  findMany(args: any): Promise<any[]>;
  count(args: any): Promise<number>;
  $name?: string;
  $parent?: unknown;
}

/**
 * The model and client a delegate's rows may be read with as JSON through the pool: none when the
 * client is a transaction's (whose writes the pool would not see).
 */
export function pooledModel(delegate: Delegate): { model: string; db: Db } | undefined {
  return delegate.$name && hasSqlPool(delegate.$parent) ? { model: delegate.$name, db: delegate.$parent } : undefined;
}

/** A page of an offset list: rows, order and window as findMany takes them. */
export interface PageWindow {
  skip: number;
  take: number;
  orderBy: Record<string, "asc" | "desc">[];
}

/** The parts of a statement over `model` rows: the reader, the condition and the order; undefined as below. */
function statementParts(model: string, where: object, orderBy: unknown, query: object) {
  const reader = rowReader(model, query);
  const condition = reader && whereSql(model, "t", where);
  const order = condition && orderSql(model, "t", orderBy);
  if (!reader || !condition || !order) return undefined;
  return { reader, condition, order: raw(order), table: raw(`"${model}" t`) };
}

/**
 * One statement for a page and its total: `{count, rows}`, the rows as `reader` reads them, in the page's
 * order, or as the JSON `answer` writes each (statement-answers.ts; `read` then leaves them as they come),
 * `asText` as the list's text (written without spaces, as windowJson's); undefined when the query, the
 * `where` or the order is beyond what SQL here answers exactly.
 */
export function pageStatement(
  model: string,
  where: object,
  page: PageWindow,
  query: object,
  answer?: Sql,
  asText = false,
) {
  const parts = statementParts(model, where, page.orderBy, query);
  if (!parts) return undefined;
  const { reader, condition, order, table } = parts;
  const rows = asText
    ? sql`coalesce(array_to_json(array_agg(${answer} ORDER BY ${order})), '[]')::text`
    : sql`coalesce(json_agg(${answer ?? reader.json("t")} ORDER BY ${order}), '[]')`;
  return {
    read: <T>(rows: unknown[]) => (answer ? (rows as T[]) : reader.read<T>(rows)),
    sql: sql`SELECT (SELECT count(*)::int FROM ${table} WHERE ${condition}) AS count,
      (SELECT ${rows}
         FROM (SELECT t.* FROM ${table} WHERE ${condition} ORDER BY ${order} LIMIT ${page.take} OFFSET ${page.skip}) t) AS rows`,
  };
}

/**
 * The first `take` rows (all when undefined) in `orderBy`'s order, without a total: `{rows}`; undefined
 * as for pageStatement.
 */
export function rowsStatement(
  model: string,
  where: object,
  orderBy: PageWindow["orderBy"],
  take: number | undefined,
  query: object,
) {
  const parts = statementParts(model, where, orderBy, query);
  if (!parts) return undefined;
  const { reader, condition, order, table } = parts;
  const limit = take === undefined ? sql`` : sql`LIMIT ${take}`;
  return {
    reader,
    sql: sql`SELECT coalesce(json_agg(${reader.json("t")} ORDER BY ${order}), '[]') AS rows
         FROM (SELECT t.* FROM ${table} WHERE ${condition} ORDER BY ${order} ${limit}) t`,
  };
}

/**
 * `delegate.findMany` of `where`, `orderBy` and `take` with the relations `query` includes: read as JSON in
 * one statement when the client is not a transaction's and the SQL here answers it exactly, else Prisma's.
 * The keyset pages' reader (keyset.ts) and the relations loaded by id in scope (relations.ts).
 */
export async function findRows<Row = Record<string, unknown>>(
  delegate: Delegate,
  where: object,
  orderBy: PageWindow["orderBy"],
  take: number | undefined,
  query: object,
): Promise<Row[]> {
  const pooled = pooledModel(delegate);
  const statement = pooled && rowsStatement(pooled.model, where, orderBy, take, query);
  if (!pooled || !statement) return delegate.findMany({ ...query, where, orderBy, take });
  const [{ rows }] = await sqlRows<{ rows: unknown[] }>(pooled.db, statement.sql);
  return statement.reader.read<Row>(rows);
}

/**
 * The first `take` rows in `orderBy`'s order as `{keys, answer}`: the columns `keys` read as findRows reads
 * them (a connection's cursor), and the JSON `answer` writes for the row at alias `t` (statement-answers.ts),
 * parsed or, `asText`, its text; undefined when the client is a transaction's or the SQL here cannot answer.
 */
export async function findAnsweredRows(
  delegate: Delegate,
  where: object,
  orderBy: PageWindow["orderBy"],
  take: number,
  keys: readonly string[],
  answer: Sql,
  asText = false,
): Promise<{ keys: Record<string, unknown>; answer: unknown }[] | undefined> {
  const pooled = pooledModel(delegate);
  const query = { select: Object.fromEntries(keys.map((key) => [key, true])) };
  const parts = pooled && statementParts(pooled.model, where, orderBy, query);
  if (!pooled || !parts) return undefined;
  const { reader, condition, order, table } = parts;
  if (asText) {
    // A result row per row: the answer's JSON comes as its text, which node-pg does not parse.
    const rows = await sqlRows<{ keys: Record<string, unknown>; answer: string }>(
      pooled.db,
      sql`SELECT ${reader.json("t")} AS keys, (${answer})::text AS answer
           FROM (SELECT t.* FROM ${table} WHERE ${condition} ORDER BY ${order} LIMIT ${take}) t ORDER BY ${order}`,
    );
    const keyRows = reader.read<Record<string, unknown>>(rows.map((row) => row.keys));
    return rows.map((row, i) => ({ keys: keyRows[i], answer: row.answer }));
  }
  const [{ rows }] = await sqlRows<{ rows: [Record<string, unknown>, unknown][] }>(
    pooled.db,
    sql`SELECT coalesce(json_agg(json_build_array(${reader.json("t")}, ${answer}) ORDER BY ${order}), '[]') AS rows
         FROM (SELECT t.* FROM ${table} WHERE ${condition} ORDER BY ${order} LIMIT ${take}) t`,
  );
  const keyRows = reader.read<Record<string, unknown>>(rows.map(([row]) => row));
  return rows.map(([, json], i) => ({ keys: keyRows[i], answer: json }));
}
