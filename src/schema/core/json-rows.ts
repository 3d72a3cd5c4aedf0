// Rows of a model, with the list relations a GraphQL selection includes, read as JSON by the statement
// that picks them, in the shape Prisma's findMany gives (Date, Decimal, BigInt), so Pothos resolves them
// as if Prisma had loaded them. For the hot lists where Prisma's reading of wide rows, and its raw-query
// path, were the cost (docs/performance.md "Rows read as JSON"). It answers only what it can answer
// exactly: `{}` or `{ include }` of list relations loaded whole, each at most ordered by its own scalar
// fields (what `t.relation(…, { query: { orderBy } })` asks for). For anything else `rowReader` is
// undefined and the caller asks Prisma.
import { Prisma } from "../../db.ts";
import { getDatamodel } from "../../generated/pothos-types.ts";

type Sql = Prisma.Sql;

interface ModelField {
  name: string;
  type: string;
  kind: string;
  isList: boolean;
  isId: boolean;
  relationName?: string;
  relationFromFields?: string[];
}

const MODELS = getDatamodel().datamodel.models as unknown as Record<string, { fields: ModelField[] }>;

/** Values whose JSON form is not Prisma's: timestamps (text), Decimal and BigInt (sent as text: a JSON number would lose digits). */
const CONVERT: Record<string, (v: string) => unknown> = {
  // timestamptz comes with its offset; a timestamp without one is UTC for Prisma; a date is midnight UTC.
  DateTime: (v) => new Date(/[zZ]$|[+-]\d\d(:?\d\d)?$/.test(v) || v.length === 10 ? v : `${v}Z`),
  Decimal: (v) => new Prisma.Decimal(v),
  BigInt: (v) => BigInt(v),
};

interface FieldConverter {
  name: string;
  list: boolean;
  convert?: (v: string) => unknown;
}

/** A model's scalar and enum fields: the columns Prisma selects for an include. */
const scalarFields = (model: string) => MODELS[model].fields.filter((f) => f.kind === "scalar" || f.kind === "enum");

/** Those columns of the row at `alias`; Decimal and BigInt as text. */
const columnsOf = (model: string, alias: string) =>
  scalarFields(model).map((f) => {
    const column = `${alias}."${f.name}"`;
    return f.type === "Decimal" || f.type === "BigInt"
      ? `${column}::text${f.isList ? "[]" : ""} AS "${f.name}"`
      : column;
  });

/** The fields whose JSON value is not Prisma's: those CONVERT handles, and lists (NULL is [] for Prisma). */
const convertedFields = (model: string): FieldConverter[] =>
  scalarFields(model)
    .filter((f) => CONVERT[f.type] || f.isList)
    .map((f) => ({ name: f.name, list: f.isList, convert: CONVERT[f.type] }));

type Converter = (row: Record<string, unknown>) => void;

function converterOf(fields: FieldConverter[], relations: { name: string; convert: Converter }[]): Converter {
  return (row) => {
    for (const { name, list, convert } of fields) {
      const value = row[name];
      // A NULL scalar list is [] for Prisma.
      if (list) row[name] = value === null ? [] : convert ? (value as string[]).map(convert) : value;
      else if (value !== null) row[name] = convert!(value as string);
    }
    for (const { name, convert } of relations)
      for (const child of row[name] as Record<string, unknown>[]) convert(child);
  };
}

/** `{field: "asc"}` or a list of those, on the related model's own scalar fields; otherwise undefined. */
function orderSql(model: string, alias: string, orderBy: unknown): string | undefined {
  const terms = Array.isArray(orderBy) ? orderBy : [orderBy];
  const scalars = new Set(MODELS[model].fields.filter((f) => f.kind !== "object" && !f.isList).map((f) => f.name));
  const parts: string[] = [];
  for (const term of terms) {
    const entries = term && typeof term === "object" ? Object.entries(term) : [];
    if (entries.length !== 1) return undefined;
    const [[field, direction]] = entries;
    if (!scalars.has(field) || (direction !== "asc" && direction !== "desc")) return undefined;
    parts.push(`${alias}."${field}" ${direction.toUpperCase()}`);
  }
  return parts.join(", ");
}

/** The list relation `name` of `model`: its model and the foreign key that points at the parent's id. */
function listRelation(model: string, name: string) {
  const field = MODELS[model].fields.find((f) => f.name === name && f.kind === "object" && f.isList);
  const parentIds = MODELS[model].fields.filter((f) => f.isId);
  if (!field || parentIds.length !== 1) return undefined;
  const back = MODELS[field.type]?.fields.find(
    (f) => f.kind === "object" && f.relationName === field.relationName && f.relationFromFields?.length === 1,
  );
  return back && { model: field.type, foreignKey: back.relationFromFields![0], parentId: parentIds[0].name };
}

export interface RowReader {
  /** The JSON of the row of `model` at `alias`, with its included relations. */
  json(alias: string): Sql;
  /** Turns parsed JSON rows into Prisma's values, in place. */
  read<T>(rows: unknown[]): T[];
}

function buildReader(model: string, query: object): RowReader | undefined {
  const keys = Object.keys(query);
  if (keys.some((k) => k !== "include")) return undefined;
  const include = ((query as { include?: unknown }).include ?? {}) as Record<string, unknown>;
  if (typeof include !== "object" || include === null) return undefined;
  const relations: { name: string; model: string; foreignKey: string; parentId: string; order?: string }[] = [];
  for (const [name, value] of Object.entries(include)) {
    const relation = listRelation(model, name);
    if (!relation) return undefined;
    if (value === true) {
      relations.push({ name, ...relation });
      continue;
    }
    const options = value && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
    if (!options || Object.keys(options).some((k) => k !== "orderBy")) return undefined;
    const order = options.orderBy === undefined ? undefined : orderSql(relation.model, "c", options.orderBy);
    if (order === undefined && options.orderBy !== undefined) return undefined;
    relations.push({ name, ...relation, order });
  }
  const childReaders = relations.map((r) => ({ name: r.name, convert: converterOf(convertedFields(r.model), []) }));
  const convert = converterOf(convertedFields(model), childReaders);
  const built = new Map<string, Sql>();
  const jsonOf = (alias: string) => {
    const own = columnsOf(model, alias);
    const nested = relations.map((r) => {
      const element = `(SELECT to_json(e) FROM (SELECT ${columnsOf(r.model, "c").join(", ")}) e)`;
      return (
        `(SELECT coalesce(json_agg(${element}${r.order ? ` ORDER BY ${r.order}` : ""}), '[]') FROM "${r.model}" c ` +
        `WHERE c."${r.foreignKey}" = ${alias}."${r.parentId}") AS "${r.name}"`
      );
    });
    return Prisma.raw(`(SELECT to_json(o) FROM (SELECT ${[...own, ...nested].join(", ")}) o)`);
  };
  return {
    json(alias) {
      let text = built.get(alias);
      if (!text) built.set(alias, (text = jsonOf(alias)));
      return text;
    },
    read<T>(rows: unknown[]) {
      for (const row of rows) convert(row as Record<string, unknown>);
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
