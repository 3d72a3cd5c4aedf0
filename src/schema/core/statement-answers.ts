// Selections answered by the statement that reads the rows (docs/dashboards.md, "The graph";
// docs/performance.md, "Dashboards", nineteenth session). A connection's rows resolved field by field
// cost plugin-prisma's relation machinery per row and relation (the board: 25 rows × location, asset,
// supplier, labels and notes, about 5 of its 8 ms); when every field a node's selection asks for is a
// column or a relation declared with its read scope (`answeredRelation`), the statement that picks the
// rows also writes each one as the answer's JSON and GraphQL only completes it: a field with a resolver
// reads its response key (answered-fields.ts), one without reads its name, and the JSON is keyed
// accordingly. When that JSON is byte for byte what GraphQL would write (asCompleted), a GraphQL answer
// takes the rows' text as it is and completes nothing (RowsAnswer.asText; twenty-fourth session).
// Anything else, or any doubt, answers undefined and the rows are resolved as before;
// test/dashboards/statement-answers.test.ts holds the paths to the same bytes.
import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  GraphQLIncludeDirective,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  GraphQLSkipDirective,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  isEnumType,
  isListType,
  isObjectType,
  isLeafType,
  isScalarType,
  Kind,
  type SelectionSetNode,
  defaultFieldResolver,
} from "graphql";
import { Prisma } from "../../db.ts";
import { writeAsText, writesText } from "./raw-json.ts";
import { checkPageSize, DEFAULT_PAGE_SIZE } from "./connection.ts";
import type { Context } from "./context.ts";
import { type ModelField, modelField, orderSql, relationJoin, whereSql, windowJson } from "./json-rows.ts";
import type { Viewer } from "./viewer.ts";

type Sql = Prisma.Sql;
const sql = Prisma.sql;
const raw = Prisma.raw;

/** Marks the objects of an answer: their fields read the response key instead of resolving. */
export const ANSWERED = Symbol("answered by its statement");

/**
 * The fields (Pothos' configs) whose resolver answered-fields.ts wraps, which read an answered object by
 * response key; every other field has no resolver and reads its own name.
 */
export const readsResponseKey = new WeakSet<object>();

/** The resolvers answered-fields.ts made: a field whose resolver is still one of them has no wrapper outside. */
export const responseKeyReaders = new WeakSet<object>();

/** A relation field as a statement can answer it: the Prisma relation, the target's read scope and order. */
export interface AnsweredRelation {
  /** The Prisma relation the field follows; plugin-prisma's relation fields name it themselves. */
  relation?: string;
  /**
   * A list that reaches its rows through a join model: `relation` leads to the join rows (ordered by
   * `orderBy`), and this relation of theirs to the rows the field returns (a proposal's attachments → file).
   */
  through?: string;
  /** The rows of the target the key may read through the field (a Prisma where), as its resolver applies it. */
  where?: (viewer: Viewer) => unknown;
  /** A list's or connection's order, as its resolver's query gives it. */
  orderBy?: readonly Record<string, "asc" | "desc">[];
}

/** The field extension that declares a relation answerable by the statement (core/relations.ts uses it). */
export const answeredRelation = (relation: AnsweredRelation) => ({ answeredRelation: relation });

/**
 * The field extension of a field its resolver computes from the row, declaring the same value in SQL
 * over the row at `alias`: a scalar as the field serializes it, or an object whose fields have no
 * resolvers, keyed by their names. The resolver stays the definition; the statement-answers test holds
 * the SQL to it.
 */
export const answeredValue = (value: (alias: string, ctx: Context) => Prisma.Sql) => ({ answeredValue: value });

/**
 * answeredValue of a list of integers, texts or booleans that `value` gives as a PostgreSQL array:
 * row_to_json writes one as JSON.stringify would, so a row holding it can go into an answer as text.
 */
export const answeredArray = (value: (alias: string, ctx: Context) => Prisma.Sql) => ({
  ...answeredValue(value),
  answeredArray: true,
});

/** answeredValue of a column as it is stored (a JSON column a resolver hands on unchanged). */
export const answeredColumn = (column: string) => answeredValue((row) => raw(`${row}."${column}"`));

/**
 * answeredValue of a numeric column as its text: its scale's decimals, as core/values.ts moneyText and
 * quantityText write a column of their scale ("12.50", "2.5000").
 */
export const answeredDecimalText = (column: string) => answeredValue((row) => raw(`${row}."${column}"::text`));

const RELATION_OF = "pothosPrismaRelationField";

/** The fields of one response object: response key → the field's nodes (merged as GraphQL merges them). */
type Fields = Map<string, FieldNode[]>;

interface Request {
  ctx: Context;
  variables: Record<string, unknown>;
  fragments: Record<string, FragmentDefinitionNode>;
  depth: number;
  /** Whether the JSON written so far is byte for byte what GraphQL would write (see asCompleted). */
  exact: boolean;
}

/** Not answerable by a statement: the caller resolves the selection field by field. */
class Unanswerable extends Error {}
const refuse = (): never => {
  throw new Unanswerable();
};

function included(node: FieldNode | SelectionSetNode["selections"][number], variables: Record<string, unknown>) {
  if (!node.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
}

/** The fields `sets` select on `type`, through fragments and @skip/@include; a fragment on another type refuses. */
function collect(type: GraphQLObjectType, sets: readonly (SelectionSetNode | undefined)[], request: Request): Fields {
  const fields: Fields = new Map();
  const visit = (set: SelectionSetNode | undefined) => {
    for (const selection of set?.selections ?? []) {
      if (!included(selection, request.variables)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const nodes = fields.get(key);
        if (nodes) nodes.push(selection);
        else fields.set(key, [selection]);
        continue;
      }
      const fragment =
        selection.kind === Kind.INLINE_FRAGMENT ? selection : (request.fragments[selection.name.value] ?? refuse());
      const condition = fragment.typeCondition?.name.value;
      if (condition !== undefined && condition !== type.name) refuse();
      visit(fragment.selectionSet);
    }
  };
  for (const set of sets) visit(set);
  return fields;
}

/** The one field the nodes under a response key name, with its arguments (the same on every node, or refused). */
function fieldOf(type: GraphQLObjectType, nodes: FieldNode[], request: Request) {
  const name = nodes[0].name.value;
  const field = type.getFields()[name] ?? refuse();
  if (nodes.some((n) => n.name.value !== name)) refuse();
  const args = getArgumentValues(field, nodes[0], request.variables);
  for (const other of nodes.slice(1))
    if (JSON.stringify(getArgumentValues(field, other, request.variables)) !== JSON.stringify(args)) refuse();
  return { field, args, sets: nodes.map((n) => n.selectionSet) };
}

/** A column's value as the field's scalar serializes it; undefined for types a statement does not write. */
function columnValue(column: ModelField, scalar: string, alias: string): Sql | undefined {
  const ref = `${alias}."${column.name}"`;
  if (column.isList)
    return ["Int", "String", "Boolean"].includes(column.type) ? raw(`coalesce(to_json(${ref}), '[]')`) : undefined;
  if (column.kind === "enum") return raw(ref);
  switch (column.type) {
    case "Int":
    case "String":
    case "Boolean":
    case "Float":
      return scalar === column.type || (scalar === "ID" && column.type !== "Boolean") ? raw(ref) : undefined;
    case "DateTime":
      // Every column exposed as a DateTime is timestamptz(3), and as a Date a date (both checked by the
      // test), written as the scalars serialize them.
      if (scalar === "DateTime") return raw(`to_char(${ref} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);
      return scalar === "Date" ? raw(`to_char(${ref}, 'YYYY-MM-DD')`) : undefined;
    case "Json":
      // The JSON scalar passes values through; PostgreSQL's JSON reads as what Prisma gives.
      return scalar === "JSON" ? raw(ref) : undefined;
    default:
      return undefined;
  }
}

type FieldValue = (
  field: GraphQLField<unknown, unknown>,
  args: Record<string, unknown>,
  sets: readonly (SelectionSetNode | undefined)[],
) => Sql;

/**
 * The JSON object of `fields`, each written by `value` under the key its field reads: the response key
 * for a field with a resolver (answered-fields.ts), its name for one without.
 */
function jsonObject(type: GraphQLObjectType, fields: Fields, request: Request, value: FieldValue): Sql {
  // JSON key → the field it holds; two response keys of one field without a resolver share its name.
  const written = new Map<string, string>();
  const columns: Sql[] = [];
  for (const [key, nodes] of fields) {
    if (nodes[0].name.value === "__typename") {
      request.exact = false; // GraphQL answers it from the type.
      continue;
    }
    const { field, args, sets } = fieldOf(type, nodes, request);
    const jsonKey = readsResponseKey.has(field.extensions.pothosConfig as object) ? key : field.name;
    if (jsonKey !== key || !asCompleted(field)) request.exact = false;
    const holds = written.get(jsonKey);
    if (holds === field.name) continue;
    if (holds !== undefined) refuse(); // another field's response key is this field's name
    written.set(jsonKey, field.name);
    // A column of the row below: a GraphQL name, quoted; one longer than PostgreSQL keeps (63 bytes) refuses.
    if (jsonKey.length > 63) refuse();
    columns.push(sql`${value(field, args, sets)} AS ${raw(`"${jsonKey}"`)}`);
  }
  // row_to_json of one row: its columns' types are known once, where json_build_object looks each
  // argument's type up on every call (a fifth less of PostgreSQL's time per row), and it takes any number
  // of columns (json_build_object at most 50 pairs: a REST invoice has 52 fields).
  return columns.length ? sql`(SELECT row_to_json(o) FROM (SELECT ${Prisma.join(columns, ", ")}) o)` : sql`'{}'::json`;
}

/** The scalars whose values a statement writes as their serializers do (an Int column as an ID would be a string). */
const SCALARS_AS_WRITTEN = new Set(["String", "Int", "Boolean", "DateTime", "Date"]);

/**
 * Whether the statement writes `field` exactly as GraphQL completes and writes it: no wrapper of the
 * schema's (masking) decides its value, and its scalar or enum is written as it serializes. A Float
 * (PostgreSQL writes 1e-05 where JavaScript writes 0.00001) or a JSON column (jsonb's text has spaces)
 * is completed instead.
 */
function asCompleted(field: GraphQLField<unknown, unknown>): boolean {
  const { resolve } = field;
  if (resolve && resolve !== defaultFieldResolver && !responseKeyReaders.has(resolve)) return false;
  const named = getNamedType(field.type);
  if (isScalarType(named)) return SCALARS_AS_WRITTEN.has(named.name);
  if (isEnumType(named)) return named.getValues().every((v) => v.value === v.name);
  return true; // an object's own fields are checked where it is written
}

/** The JSON object of the row of `model` at `alias`, with the fields `fields` asks for. */
const objectJson = (type: GraphQLObjectType, model: string, alias: string, fields: Fields, request: Request) =>
  jsonObject(type, fields, request, (field, args, sets) => valueJson(field, args, sets, model, alias, request));

function valueJson(
  field: GraphQLField<unknown, unknown>,
  args: Record<string, unknown>,
  sets: readonly (SelectionSetNode | undefined)[],
  model: string,
  alias: string,
  request: Request,
): Sql {
  const extensions = field.extensions as Record<string, any>;
  const exposed = extensions.pothosExposedField as string | undefined;
  const named = getNamedType(field.type);
  if (exposed !== undefined && !Object.keys(args).length) {
    const column = modelField(model, exposed);
    const scalar = isScalarType(named) ? named.name : isEnumType(named) ? "enum" : undefined;
    const value = column && column.kind !== "object" && scalar && columnValue(column, scalar, alias);
    if (value && isListType(getNullableType(field.type)) === column.isList) return value;
  }
  const value = extensions.answeredValue as ((alias: string, ctx: Context) => Sql) | undefined;
  if (value) {
    // An object's fields are read by name (none may have a resolver); arguments would change the value.
    if (Object.keys(args).length) return refuse();
    // Whatever its SQL builds an object or list with (json_build_object writes spaces, jsonb's text too),
    // GraphQL rewrites; a PostgreSQL array of these scalars row_to_json writes as GraphQL would.
    const array = extensions.answeredArray === true && ["Int", "String", "Boolean"].includes(named.name);
    if (!isLeafType(getNullableType(field.type)) && !array) request.exact = false;
    if (isObjectType(named))
      for (const [, nodes] of collect(named, sets, request))
        if (
          nodes[0].name.value !== "__typename" &&
          readsResponseKey.has(fieldOf(named, nodes, request).field.extensions.pothosConfig as object)
        )
          refuse();
    return value(alias, request.ctx);
  }
  const declared = extensions.answeredRelation as AnsweredRelation | undefined;
  const relation = declared && (declared.relation ?? extensions[RELATION_OF]?.name);
  if (!declared || !relation) return refuse();
  const join = relationJoin(model, modelField(model, relation) ?? refuse()) || refuse();
  const child = `a${request.depth++}`;
  const scope = declared.where ? whereSql(join.model, child, declared.where(request.ctx.viewer)) : sql`TRUE`;
  const from = sql`FROM ${raw(`"${join.model}" ${child}`)} WHERE ${raw(join.on(alias, child))} AND ${scope ?? refuse()}`;
  if (!join.list) {
    if (declared.through || !isObjectType(named) || modelOf(named) !== join.model || Object.keys(args).length)
      return refuse();
    const node = objectJson(named, join.model, child, collect(named, sets, request), request);
    return sql`(SELECT ${node} ${from})`;
  }
  if (!isObjectType(named)) return refuse();
  if (!isListType(getNullableType(field.type))) {
    if (declared.through || !named.getFields().edges) return refuse();
    return connectionJson(named, args, sets, join.model, child, from, declared, request);
  }
  // A plain list: all the related rows in the declared order, or the rows they lead to through a join model.
  if (Object.keys(args).length) return refuse();
  const order = orderSql(join.model, child, declared.orderBy) ?? refuse();
  const item = declared.through
    ? throughItem(named, join.model, child, declared.through, sets, request)
    : modelOf(named) === join.model
      ? objectJson(named, join.model, child, collect(named, sets, request), request)
      : refuse();
  return windowJson(item, from, order, { backward: false, take: undefined, skip: 0 }, `w${request.depth++}`);
}

/** The row a join model's row at `joined` leads to by its required relation `through`, as `named` asks for it. */
function throughItem(
  named: GraphQLObjectType,
  model: string,
  joined: string,
  through: string,
  sets: readonly (SelectionSetNode | undefined)[],
  request: Request,
): Sql {
  const target = relationJoin(model, modelField(model, through) ?? refuse());
  if (!target || target.list || modelOf(named) !== target.model) return refuse();
  const child = `a${request.depth++}`;
  const node = objectJson(named, target.model, child, collect(named, sets, request), request);
  return sql`(SELECT ${node} FROM ${raw(`"${target.model}" ${child}`)} WHERE ${raw(target.on(joined, child))})`;
}

const modelOf = (type: GraphQLObjectType): string =>
  ((type.extensions as Record<string, unknown>).pothosPrismaModel as string | undefined) ?? refuse();

/**
 * A connection under a row: `edges { node }` (no cursors) and `totalCount`, a page of `first` from the
 * start or `last` from the end in the declared order; `after`/`before`, `pageInfo` and cursors are refused.
 */
function connectionJson(
  type: GraphQLObjectType,
  args: Record<string, unknown>,
  sets: readonly (SelectionSetNode | undefined)[],
  model: string,
  child: string,
  from: Sql,
  declared: AnsweredRelation,
  request: Request,
): Sql {
  if (args.after != null || args.before != null || (args.first != null && args.last != null)) refuse();
  try {
    checkPageSize(args);
  } catch {
    refuse(); // the resolvers give the contract's error
  }
  const take = (args.first ?? args.last ?? DEFAULT_PAGE_SIZE) as number;
  const order = orderSql(model, child, declared.orderBy) ?? refuse();
  const backward = args.last != null;
  const edgeType = getNamedType(type.getFields().edges.type) as GraphQLObjectType;
  const nodeType = getNamedType(edgeType.getFields().node.type) as GraphQLObjectType;
  const edgeJson: FieldValue = (field, _args, sets) =>
    field.name === "node" ? objectJson(nodeType, model, child, collect(nodeType, sets, request), request) : refuse();
  return jsonObject(type, collect(type, sets, request), request, (field, _args, edgeSets) => {
    if (field.name === "totalCount") return sql`(SELECT count(*)::int ${from})`;
    if (field.name !== "edges") return refuse();
    const item = jsonObject(edgeType, collect(edgeType, edgeSets, request), request, edgeJson);
    return windowJson(item, from, order, { backward, take, skip: 0 }, `w${request.depth++}`);
  });
}

/** Marks every object of an answer (arrays walked through), so answered-fields.ts reads them. */
function markAnswered(value: unknown): void {
  if (Array.isArray(value)) for (const item of value) markAnswered(item);
  else if (value !== null && typeof value === "object") {
    (value as Record<symbol, unknown>)[ANSWERED] = true;
    for (const item of Object.values(value)) if (item !== null && typeof item === "object") markAnswered(item);
  }
}

/** A page's rows as their statement writes them: the JSON of the row at alias `t`, and what takes the rows. */
export interface RowsAnswer {
  json: Sql;
  /** Marks the rows the statement wrote (and the request's log line says so). */
  answered(rows: unknown[]): void;
  /**
   * When each row's JSON, as text, is exactly what GraphQL would write for it (and every level between the
   * list and its rows selects nothing else: `edges { node }`), and this run's answer takes text
   * (raw-json.ts writesText): puts the list made of the rows' texts in the answer (writeAsText), in place
   * of the value the field completes to (its resolver returns an empty list); the log line says so. A
   * string is the list's own text as the statement wrote it, where nothing lies between list and rows
   * (an offset page's `data`: a text[] would cost node-pg a parse of every character).
   */
  asText?: { write(rows: string[] | string): void };
}

/** A list's rows as compiled: their JSON, and how a text of them goes into the answer (RowsAnswer.asText) when exact. */
interface CompiledRows {
  json: Sql;
  /**
   * When the JSON is exact: the list's response key, and what goes around each row's text for the levels
   * between the list and its rows (`{"node":` and `}` for a connection's edges; nothing for an offset page).
   */
  text?: { key: string; open: string; close: string };
}

/**
 * The JSON of a list's rows as compiled for one key and one selection, or null when they cannot be
 * answered: per viewer (the scopes are the key's), per field node of a parsed document (which the
 * parser's cache keeps for every request of the same text) and per variables. Compiling a
 * 40-field row on every request was a tenth of a list's CPU.
 */
const compiled = new WeakMap<object, WeakMap<FieldNode, Map<string, CompiledRows | null>>>();

function compiledRows(ctx: Context, info: GraphQLResolveInfo, path: readonly string[]): CompiledRows | null {
  let byNode = compiled.get(ctx.viewer);
  if (!byNode) compiled.set(ctx.viewer, (byNode = new WeakMap()));
  let byInput = byNode.get(info.fieldNodes[0]);
  if (!byInput) byNode.set(info.fieldNodes[0], (byInput = new Map()));
  const key = JSON.stringify([path, info.fieldNodes.length, info.variableValues]);
  let json = byInput.get(key);
  if (json === undefined) {
    json = compileRows(ctx, info, path);
    // A stream of distinct variables must not grow it without bound.
    if (byInput.size >= 100) byInput.clear();
    byInput.set(key, json);
  }
  return json;
}

function compileRows(ctx: Context, info: GraphQLResolveInfo, path: readonly string[]): CompiledRows | null {
  const request: Request = { ctx, variables: info.variableValues, fragments: info.fragments, depth: 0, exact: true };
  try {
    let type = getNamedType(info.returnType);
    let nodes: readonly FieldNode[] = info.fieldNodes;
    const textKeys: string[] = [];
    for (const [step, name] of path.entries()) {
      if (!isObjectType(type) || !type.getFields()[name]) return null;
      // Every response key of the step's field (aliases of one field answer the same rows).
      const fields = collect(
        type,
        nodes.map((n) => n.selectionSet),
        request,
      );
      const keys = [...fields].filter(([, under]) => under[0].name.value === name);
      // A text of the rows needs one key for the list, and nothing else selected below it but the row.
      if (keys.length !== 1 || (step > 0 && fields.size !== 1)) request.exact = false;
      textKeys.push(keys[0]?.[0]);
      nodes = keys.flatMap(([, under]) => under);
      type = getNamedType(type.getFields()[name].type);
    }
    if (!isObjectType(type) || !nodes.length) return null;
    const fields = collect(
      type,
      nodes.map((n) => n.selectionSet),
      request,
    );
    const json = objectJson(type, modelOf(type), "t", fields, request);
    if (!request.exact) return { json };
    const levels = textKeys.slice(1);
    const text = {
      key: textKeys[0],
      open: levels.map((key) => `{${JSON.stringify(key)}:`).join(""),
      close: "}".repeat(levels.length),
    };
    return { json, text };
  } catch (error) {
    if (error instanceof Unanswerable) return null;
    throw error;
  }
}

/**
 * The rows of the list field of `info` as the statement can write them: `path` leads from the field's type
 * to its rows (`["edges", "node"]` for a connection, `["data"]` for an offset page), and every field the
 * document selects there must be one a statement answers; undefined otherwise (the rows are resolved).
 */
export function rowsAnswer(ctx: Context, info: GraphQLResolveInfo, path: readonly string[]): RowsAnswer | undefined {
  const { statementAnswers } = ctx;
  const rows = statementAnswers && compiledRows(ctx, info, path);
  if (!statementAnswers || !rows) return undefined;
  const { text } = rows;
  return {
    json: rows.json,
    answered(rows) {
      markAnswered(rows);
      statementAnswers.answered();
    },
    ...(text &&
      writesText(ctx) && {
        asText: {
          write(rows) {
            statementAnswers.answered(true);
            if (typeof rows === "string" && text.open) throw new Error("a list's text with levels below it");
            const list =
              typeof rows === "string" ? rows : `[${rows.map((row) => text.open + row + text.close).join(",")}]`;
            writeAsText(ctx, info, text.key, list);
          },
        },
      }),
  };
}
