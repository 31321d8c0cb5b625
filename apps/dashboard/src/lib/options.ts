// The options of a select or segmented control from a label map keyed by a type of the OpenAPI
// document (`Record<Status, string>`: tsc fails when the document adds or drops a value).

/** `{ value, label }` options of a label map, in the map's order. */
export function optionsOf(labels: Record<string, string>): { value: string; label: string }[] {
  return Object.entries(labels).map(([value, label]) => ({ value, label }));
}
