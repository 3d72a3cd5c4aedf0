// A list call the bench makes — REST or GraphQL — described once and used both for the load runs
// (autocannon) and for the single requests that check responses and count statements.

export interface ListCall {
  method: "GET" | "POST";
  /** Path and query string. */
  path: string;
  /** JSON request body (GraphQL). */
  body?: string;
  /** The `{data, count}` page inside a successful response body; throws on an error body. */
  page(json: any): { data: unknown[]; count: number };
}

/** A REST list: the page is the envelope itself. */
export function restList(path: string): ListCall {
  return { method: "GET", path, page: (json) => json };
}

/** A GraphQL query of one list field; the page is data[field]. */
export function graphqlList(field: string, query: string): ListCall {
  return {
    method: "POST",
    path: "/graphql",
    body: JSON.stringify({ query }),
    page(json) {
      if (json.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(json.errors)}`);
      return json.data[field];
    },
  };
}

/** One request; returns the page after checking the status and the shape. */
export async function callOnce(baseUrl: string, headers: Record<string, string>, call: ListCall) {
  const response = await fetch(`${baseUrl}${call.path}`, {
    method: call.method,
    headers: { ...headers, ...(call.body ? { "content-type": "application/json" } : {}) },
    body: call.body,
  });
  const text = await response.text();
  if (response.status !== 200)
    throw new Error(`${call.method} ${call.path}: HTTP ${response.status}: ${text.slice(0, 500)}`);
  const page = call.page(JSON.parse(text));
  if (!Array.isArray(page?.data) || typeof page.count !== "number") {
    throw new Error(`${call.method} ${call.path}: not a {data, count} page: ${text.slice(0, 500)}`);
  }
  return page;
}
