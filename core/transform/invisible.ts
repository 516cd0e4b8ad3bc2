/**
 * Invisible format characters (docs/teams-and-routes.md "Masking"): Unicode's format controls (category Cf) that
 * render as nothing, such as the zero-width space, the joiners, the soft hyphen, the byte order mark and the bidi
 * marks, embeddings and isolates. Written inside a secret (`carol\u200b@example.org`, a key with a soft hyphen) they
 * split it for every detector while a reader still sees it whole, so masking removes them from its view of a text
 * before it decides (masking.ts), and the stored text is that view. Left out of the set: Cf characters that are
 * visible (the Arabic number signs U+0600-U+0605, U+06DD, U+070F, U+0890-U+0891, U+08E2 and the Kaithi number signs
 * U+110BD, U+110CD, which render as marks). Pure: no SDK, no I/O.
 */

/** The invisible format characters, by code point ranges (Unicode 15.1 Cf, less the visible ones above). */
const INVISIBLE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x00ad, 0x00ad], // soft hyphen
  [0x061c, 0x061c], // Arabic letter mark
  [0x180e, 0x180e], // Mongolian vowel separator
  [0x200b, 0x200f], // zero-width space, ZWNJ, ZWJ, left-to-right and right-to-left marks
  [0x202a, 0x202e], // bidi embeddings and overrides
  [0x2060, 0x2064], // word joiner, invisible operators
  [0x2066, 0x206f], // bidi isolates, deprecated format characters
  [0xfeff, 0xfeff], // byte order mark, zero-width no-break space
  [0xfff9, 0xfffb], // interlinear annotation
  [0x13430, 0x1343f], // Egyptian hieroglyph format controls
  [0x1bca0, 0x1bca3], // shorthand format controls
  [0x1d173, 0x1d17a], // musical symbol format controls
  [0xe0001, 0xe0001], // language tag
  [0xe0020, 0xe007f], // tag characters
];

/** 1: an invisible BMP character; 2: a high surrogate that starts one (its low surrogate decides). */
const BMP = ((): Uint8Array => {
  const table = new Uint8Array(0x10000);
  for (const [lo, hi] of INVISIBLE_RANGES) {
    for (let c = lo; c <= hi; c++) {
      if (c <= 0xffff) table[c] = 1;
      else table[0xd800 + ((c - 0x10000) >> 10)] = 2;
    }
  }
  return table;
})();

const INVISIBLE = new RegExp(
  `[${INVISIBLE_RANGES.map(([lo, hi]) => `\\u{${lo.toString(16)}}-\\u{${hi.toString(16)}}`).join('')}]`,
  'gu',
);

/** True when the code unit at `i` of `text` starts an invisible format character. */
export function invisibleAt(text: string, i: number): boolean {
  const kind = BMP[text.charCodeAt(i)];
  if (kind === 2) {
    const point = text.codePointAt(i) ?? 0;
    return INVISIBLE_RANGES.some(([lo, hi]) => point >= lo && point <= hi);
  }
  return kind === 1;
}

/** The table {@link invisibleAt} reads, for loops that already hold the code unit (mask-detectors.ts `features`). */
export const INVISIBLE_BMP: Readonly<Uint8Array> = BMP;

/** True when `text` holds an invisible format character (a loop for short texts such as JSON member names). */
export function hasInvisible(text: string): boolean {
  for (let i = 0; i < text.length; i++)
    if (BMP[text.charCodeAt(i)] !== 0 && invisibleAt(text, i)) return true;
  return false;
}

/** `text` without its invisible format characters. */
export function withoutInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}
