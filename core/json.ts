/** The one test for "a JSON object" (not null, not an array), for every reader of parsed JSON. */
export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
