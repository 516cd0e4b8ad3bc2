/**
 * Masking of a JSON message value by value (masking.ts): every string value is decoded as JSON.parse would decode it
 * (the stored field is the decoded value, whatever escapes the app wrote: `\u0040`, `\/`, `\u002B`), masked with the
 * name of the member it belongs to (at any depth: an array's values belong to the array's member), and written back
 * with JSON.stringify. Keys, numbers and structure stay as they were, so the message still parses to the same shape.
 * Never throws: a string that is no valid JSON string (a bad escape, a raw control character) means the message is
 * no JSON, and the caller masks it as text. Pure: no SDK, no I/O.
 */
import { stringEnd } from './app-json';
import { escapedChar } from './mask-detectors';

/** A JSON string token's value, decoded; undefined when the token is not a valid JSON string. */
export function decodeJsonString(text: string, start: number, end: number): string | undefined {
  // `start` is the opening quote, `end` the closing one.
  let out = '';
  let copiedTo = start + 1;
  for (let i = start + 1; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20) return undefined;
    if (c !== 0x5c) continue;
    const decoded = escapedChar(text, i);
    if (decoded < 0) return undefined;
    out += text.slice(copiedTo, i) + String.fromCharCode(decoded);
    i += text.charCodeAt(i + 1) === 0x75 ? 5 : 1;
    copiedTo = i + 1;
  }
  return out + text.slice(copiedTo, end);
}

/** Masks one decoded string value; `key` names the member it belongs to. Undefined: nothing to mask. */
export type ValueMasker = (value: string, key: string | undefined) => string | undefined;

/** The member name governing values at a nesting level. */
interface Frame {
  readonly object: boolean;
  /** For an object: the last key read. For an array: the key of the member that holds the array. */
  key: string | undefined;
}

/** What {@link maskJsonStrings} found. */
export type JsonMaskResult =
  /** Some value was masked: the masked text. */
  | { readonly kind: 'masked'; readonly text: string }
  /** Every string decoded, nothing masked. */
  | { readonly kind: 'unchanged' }
  /** A string is no valid JSON string: the text is no JSON, mask it as text. */
  | { readonly kind: 'invalid' };

/**
 * The JSON object text with every string value masked by `mask` and written back with JSON.stringify. In JSON every
 * `"` outside a string opens one, so the scan goes from string to string, keeping track of `{`/`[` nesting between
 * them for the member names; a string is a key when `:` follows it.
 */
export function maskJsonStrings(text: string, mask: ValueMasker): JsonMaskResult {
  let out = '';
  let copiedTo = 0;
  const frames: Frame[] = [];
  let scanFrom = 0;
  let i = text.indexOf('"');
  while (i >= 0) {
    // Nesting between the last string and this one.
    for (let k = scanFrom; k < i; k++) {
      const c = text.charCodeAt(k);
      if (c === 0x7b || c === 0x5b) {
        const top = frames[frames.length - 1];
        frames.push({ object: c === 0x7b, key: c === 0x7b ? undefined : top?.key });
      } else if (c === 0x7d || c === 0x5d) {
        frames.pop();
      }
    }
    const end = stringEnd(text, i);
    if (end < 0) return { kind: 'invalid' };
    const value = decodeJsonString(text, i, end);
    if (value === undefined) return { kind: 'invalid' };
    let next = end + 1;
    while (next < text.length && text.charCodeAt(next) <= 0x20) next++;
    const top = frames[frames.length - 1];
    if (text.charCodeAt(next) === 0x3a) {
      if (top !== undefined && top.object) top.key = value;
    } else {
      const masked = mask(value, top?.key);
      if (masked !== undefined) {
        out += text.slice(copiedTo, i) + JSON.stringify(masked);
        copiedTo = end + 1;
      }
    }
    scanFrom = end + 1;
    i = text.indexOf('"', end + 1);
  }
  return copiedTo === 0 ? { kind: 'unchanged' } : { kind: 'masked', text: out + text.slice(copiedTo) };
}
