// The one sanitation step every request's input goes through before any feature sees it (REST: path,
// query and JSON body; GraphQL: variables and the document's literals). PostgreSQL cannot store a NUL
// character or a lone surrogate, integers past 2^53 silently lose digits, and very deep JSON or GraphQL
// nesting only costs: each is a 400 naming where it was, instead of a failed query deeper down.
// docs/api.md ("Request limits").
import type { IncomingMessage } from "node:http";
import { badInput } from "../schema/core/errors.ts";

/** Largest JSON body of a REST write or a GraphQL request, checked while reading (before any parsing). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** How deep a JSON body (or GraphQL variables) may nest. */
const MAX_JSON_DEPTH = 32;

const NUL = "\u0000";
/** In a /u pattern a surrogate pair is one code point, so \p{Cs} matches only an unpaired half. */
const LONE_SURROGATE = /\p{Cs}/u;

/** A path for messages: `notes[2].text`. */
const join = (where: string, key: string | number) =>
  typeof key === "number" ? `${where}[${key}]` : where ? `${where}.${key}` : key;

/** Checks one text value (a query parameter, a path segment, a string literal). */
export function checkText(text: string, where: string): void {
  if (text.includes(NUL)) throw badInput(`${where} must not contain NUL characters`);
  // A lone UTF-16 surrogate ("\ud800" in JSON) is no character: PostgreSQL cannot store it.
  if (LONE_SURROGATE.test(text)) throw badInput(`${where} must be valid Unicode text (it has a lone surrogate)`);
}

/** Checks a parsed JSON value: depth, NUL characters in keys and strings, integers beyond 2^53. Iterative. */
export function checkJson(value: unknown, where: string): void {
  const stack: { value: unknown; where: string; depth: number }[] = [{ value, where, depth: 0 }];
  while (stack.length) {
    const item = stack.pop()!;
    if (typeof item.value === "string") checkText(item.value, item.where || "the body");
    else if (typeof item.value === "number") {
      if (Number.isInteger(item.value) && !Number.isSafeInteger(item.value)) {
        throw badInput(
          `${item.where || "the body"} is an integer too large to be exact (at most ${Number.MAX_SAFE_INTEGER})`,
        );
      }
    } else if (item.value !== null && typeof item.value === "object") {
      if (item.depth >= MAX_JSON_DEPTH) {
        const top = /^[^.[]*/.exec(item.where)?.[0];
        throw badInput(`${top || "the body"} nests deeper than ${MAX_JSON_DEPTH} levels`);
      }
      const entries: [string | number, unknown][] = Array.isArray(item.value)
        ? item.value.map((v, i) => [i, v])
        : Object.entries(item.value);
      for (const [key, child] of entries) {
        if (typeof key === "string") checkText(key, join(item.where, key));
        stack.push({ value: child, where: join(item.where, key), depth: item.depth + 1 });
      }
    }
  }
}

/** How deep brackets ({, [, () may nest in a GraphQL document: selections and literals together. */
const MAX_DOCUMENT_NESTING = 64;

/** Documents whose nesting passed (checkDocumentNesting). */
const nestingChecked = new Set<string>();

/**
 * A GraphQL document's bracket nesting, read before parsing: graphql-js parses (and coerces) nested
 * literals recursively, so a list literal a few thousand levels deep would exhaust the stack. Strings,
 * block strings and comments are skipped. Iterative. A document that passed is not read again (a
 * client sends the same few documents; a bounded set, emptied when full).
 */
export function checkDocumentNesting(source: string): void {
  if (nestingChecked.has(source)) return;
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "#") {
      while (i < source.length && source[i] !== "\n" && source[i] !== "\r") i++;
    } else if (source.startsWith('"""', i)) {
      i += 3;
      while (i < source.length && !source.startsWith('"""', i)) i += source.startsWith('\\"""', i) ? 4 : 1;
      i += 2;
    } else if (c === '"') {
      for (i++; i < source.length && source[i] !== '"' && source[i] !== "\n"; i++) if (source[i] === "\\") i++;
    } else if (c === "{" || c === "[" || c === "(") {
      if (++depth > MAX_DOCUMENT_NESTING)
        throw badInput(`the document nests deeper than ${MAX_DOCUMENT_NESTING} levels`);
    } else if (c === "}" || c === "]" || c === ")") depth--;
  }
  if (nestingChecked.size >= 256) nestingChecked.clear();
  nestingChecked.add(source);
}

/** Query parameters: names and values. */
export function checkQuery(params: URLSearchParams): void {
  for (const [name, value] of params) {
    checkText(name, "a query parameter name");
    checkText(value, `query parameter ${name}`);
  }
}

/** Reads a body up to `limit` bytes; a larger one is drained (so the 400 can still be sent) and refused. */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on("end", () =>
      size > limit
        ? reject(badInput(`the body is larger than ${limit} bytes`))
        : resolve(Buffer.concat(chunks).toString("utf8")),
    );
    req.on("error", reject);
  });
}
