/**
 * What Painless' `String.valueOf(x)` prints for a value parsed from a JSON document, so the direct path writes the
 * same text where the ingest pipeline writes a value as a string (`kfek.unknownRoute`, the parts of the document id).
 *
 * OpenSearch parses a source into Java objects (strings, `Integer`/`Long` for integers, `Double` for the rest,
 * `Boolean`, `null`, `ArrayList`, `HashMap`). JSON.parse keeps no difference between `1` and `1.0`, and a
 * `HashMap` prints its keys in hash order, not the document's: this renders integers as Java integers, other
 * numbers as `Double.toString` does, and objects in the document's key order. Only values kfek's transform never
 * writes where the pipeline prints them (a `kfek.route` that is no string; a `cloudwatch.id` that is no string)
 * can differ; the equivalence test on the node (test/core/delivery/equivalence.integ.test.ts) covers the rest.
 */

/** `Double.toString`: at least one decimal, scientific notation (`1.0E20`) outside [10^-3, 10^7). */
function javaDouble(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  const magnitude = Math.abs(value);
  if (magnitude === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    const text = String(value);
    return text.includes('.') ? text : `${text}.0`;
  }
  const [mantissa, exponent] = value.toExponential().split('e');
  const digits = mantissa.includes('.') ? mantissa : `${mantissa}.0`;
  return `${digits}E${Number(exponent)}`;
}

/** `String.valueOf(x)` in Painless for `x` as OpenSearch parsed it from JSON (see the file comment for the limits). */
export function javaValueOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    // Jackson reads an integer literal as Integer/Long when it fits, which prints without a decimal.
    return Number.isSafeInteger(value) ? String(value) : javaDouble(value);
  }
  if (Array.isArray(value)) return `[${value.map(javaValueOf).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(
      ([k, v]) => `${k}=${javaValueOf(v)}`,
    );
    return `{${entries.join(', ')}}`;
  }
  // JSON.parse gives nothing else; a bigint or symbol here came from code, not from a document.
  return typeof value === 'bigint' ? value.toString() : 'null';
}
