/**
 * The code unit sets of route patterns (route-pattern-syntax.ts): JavaScript's classes and escapes as ranges of UTF-16
 * code units, and how an RE2 class spells a set, with surrogate code units moved to plane 15 so that each is one RE2
 * character (route-pattern.ts moves them in a text the same way). CDK-free, no I/O.
 */

/** Code unit ranges, sorted and disjoint, inclusive. */
export type Ranges = ReadonlyArray<readonly [number, number]>;

const SURROGATE_FIRST = 0xd800;
const SURROGATE_LAST = 0xdfff;
/** Where surrogate code units are moved to (plane 15, private use): one RE2 character per code unit. */
const SURROGATE_BASE = 0xf0000;

/** The RE2 code point that stands for a UTF-16 code unit. */
export function unitPoint(unit: number): number {
  return unit >= SURROGATE_FIRST && unit <= SURROGATE_LAST ? SURROGATE_BASE + unit - SURROGATE_FIRST : unit;
}

/** JavaScript's `\s`: WhiteSpace and LineTerminator (ECMA-262 22.2.2.9, CharacterClassEscape). */
const SPACE: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const DIGIT: Ranges = [[0x30, 0x39]];
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
/** JavaScript's `.` without `s`: every code unit but the four line terminators. */
export const LINE_TERMINATORS: Ranges = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

export function normalize(ranges: ReadonlyArray<readonly [number, number]>): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

export function complement(ranges: Ranges): Ranges {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of normalize(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= 0xffff) out.push([next, 0xffff]);
  return out;
}

export const hex = (point: number): string => `\\x{${point.toString(16)}}`;

/** An RE2 class for code unit ranges (surrogates moved to their plane-15 points). */
export function re2Class(ranges: Ranges): string {
  const parts: string[] = [];
  for (const [lo, hi] of normalize(ranges)) {
    for (const [a, b] of [
      [lo, Math.min(hi, SURROGATE_FIRST - 1)],
      [Math.max(lo, SURROGATE_FIRST), Math.min(hi, SURROGATE_LAST)],
      [Math.max(lo, SURROGATE_LAST + 1), hi],
    ]) {
      if (a <= b) parts.push(a === b ? hex(unitPoint(a)) : `${hex(unitPoint(a))}-${hex(unitPoint(b))}`);
    }
  }
  // An empty class (JavaScript's `[]`) matches nothing; RE2 spells that as the complement of everything.
  return parts.length === 0 ? '[^\\x{0}-\\x{10ffff}]' : `[${parts.join('')}]`;
}

export const CLASS_ESCAPES: Readonly<Record<string, Ranges>> = {
  d: DIGIT,
  D: complement(DIGIT),
  w: WORD,
  W: complement(WORD),
  s: SPACE,
  S: complement(SPACE),
};
export const CONTROL_ESCAPES: Readonly<Record<string, number>> = { t: 9, n: 10, v: 11, f: 12, r: 13 };

/**
 * The most threads a run of literal characters keeps alive at once: after any text, the live ones are the prefixes
 * of the run that end the text, which are the longest such prefix and its borders (KMP's failure chain). `xyyyy` keeps
 * one, `aaaa` keeps four.
 */
export function literalWidth(run: readonly number[]): number {
  const failure = new Array<number>(run.length + 1).fill(0);
  const chain = new Array<number>(run.length + 1).fill(0);
  let widest = 0;
  for (let j = 1; j <= run.length; j++) {
    let k = j === 1 ? 0 : failure[j - 1];
    while (k > 0 && run[k] !== run[j - 1]) k = failure[k];
    failure[j] = j > 1 && run[k] === run[j - 1] ? k + 1 : 0;
    chain[j] = 1 + chain[failure[j]];
    widest = Math.max(widest, chain[j]);
  }
  return widest;
}
