/**
 * The card number detector (docs/teams-and-routes.md "Masking"): digit groups that pass the Luhn check, found by a
 * scan rather than a regular expression, so a run of digits costs at most 19 steps per digit whatever it holds.
 * Pure: no SDK, no I/O.
 */
import { type Detector, F_CARD_DIGITS, hexValue } from './mask-features';

/** The Luhn checksum over the digits of `text` (separators ignored): 13 to 19 digits that check. */
export function luhnValid(text: string): boolean {
  let sum = 0;
  let digits = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text.charCodeAt(i) - 0x30;
    if (c < 0 || c > 9) continue;
    const doubled = digits % 2 === 1 ? c * 2 : c;
    sum += doubled > 9 ? doubled - 9 : doubled;
    digits++;
  }
  return digits >= 13 && digits <= 19 && sum % 10 === 0;
}

export function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** A run of digit groups: each group is `[start, end)` of digits; groups are one space or dash apart. */
type Groups = Array<readonly [number, number]>;

/**
 * Card numbers: runs of digit groups (one space or dash between groups; `%XX` before a group is a separator, not
 * digits), and in each run the windows of whole consecutive groups with 13 to 19 digits that pass Luhn, longest
 * first from the left. A card number never starts or ends inside a group, so an order number glued to a card by a
 * space (`order 12 4111 1111 1111 1111`) does not hide it, and a long id of 20 or more digits is no card.
 */
export function cardDetector(): Detector {
  return {
    name: 'creditCard',
    feature: F_CARD_DIGITS,
    mask(text, marker, count) {
      const spans: Array<readonly [number, number]> = [];
      let i = 0;
      while (i < text.length) {
        if (!isDigitCode(text.charCodeAt(i))) {
          i++;
          continue;
        }
        // `%20` before digits: the two hex digits are the separator's, not the number's.
        let start = i;
        if (i >= 1 && text.charCodeAt(i - 1) === 0x25 && hexValue(text.charCodeAt(i + 1)) >= 0) {
          start = i + 2;
          if (start >= text.length || !isDigitCode(text.charCodeAt(start))) {
            i = start;
            continue;
          }
        } else if (i >= 1 && isDigitCode(text.charCodeAt(i - 1))) {
          i++;
          continue;
        }
        const groups: Groups = [];
        let j = start;
        for (;;) {
          const groupStart = j;
          while (j < text.length && isDigitCode(text.charCodeAt(j))) j++;
          groups.push([groupStart, j]);
          const sep = text.charCodeAt(j);
          if ((sep === 0x20 || sep === 0x2d) && isDigitCode(text.charCodeAt(j + 1))) j++;
          else break;
        }
        cardWindows(text, groups, spans);
        i = j;
      }
      if (spans.length === 0) return text;
      count(spans.length);
      let out = '';
      let copiedTo = 0;
      for (const [s, e] of spans) {
        out += text.slice(copiedTo, s) + marker;
        copiedTo = e;
      }
      return out + text.slice(copiedTo);
    },
  };
}

/** `d` doubled as Luhn doubles it (digits over 9 summed). */
function luhnDouble(d: number): number {
  return d * 2 > 9 ? d * 2 - 9 : d * 2;
}

/**
 * Adds to `spans` the card numbers among the windows of whole groups of one run (see {@link cardDetector}). The Luhn
 * sums of a window grow digit by digit (the sum with the last digit not doubled, and the sum with it doubled, swap as
 * a digit is appended), so a run costs at most 19 steps per digit whatever it holds.
 */
function cardWindows(text: string, groups: Groups, spans: Array<readonly [number, number]>): void {
  let g = 0;
  while (g < groups.length) {
    let found = -1;
    let digits = 0;
    let plain = 0; // the Luhn sum with the last digit appended not doubled
    let doubled = 0; // the same digits with the other parity
    for (let k = g; k < groups.length && digits <= 19; k++) {
      for (let i = groups[k][0]; i < groups[k][1] && digits <= 19; i++) {
        const d = text.charCodeAt(i) - 0x30;
        const nextPlain = doubled + d;
        doubled = plain + luhnDouble(d);
        plain = nextPlain;
        digits++;
      }
      if (digits > 19) break;
      if (digits >= 13 && plain % 10 === 0) found = k;
    }
    if (found >= 0) {
      spans.push([groups[g][0], groups[found][1]]);
      g = found + 1;
    } else {
      g++;
    }
  }
}
