/**
 * Canonical JSON: the one function that writes a value so that two values get the same text exactly when they mean
 * the same JSON. Object keys are sorted; otherwise it follows `JSON.stringify`: a member whose value is undefined is
 * left out and an undefined array element is written `null`. A value that is undefined itself (an absent property)
 * is written `undefined`, so it never equals `null`. Used to compare templates (core/change-plan) and to hash
 * OpenSearch bodies. Pure.
 */

export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) {
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Readonly<Record<string, unknown>>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
