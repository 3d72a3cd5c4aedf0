/**
 * An enum's values, each with its description, typed so that a value left undescribed does not compile:
 * `builder.enumType("X", { values: describedValues(X_VALUES, { a: "…", b: "…" }) })`.
 */
export function describedValues<V extends string>(values: readonly V[], descriptions: Record<V, string>) {
  return Object.fromEntries(values.map((value) => [value, { description: descriptions[value] }])) as Record<
    V,
    { description: string }
  >;
}
