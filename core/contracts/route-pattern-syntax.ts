/**
 * A route pattern is a JavaScript regular expression without flags (docs/teams-and-routes.md "Processing"), and it
 * runs on RE2 (route-pattern.ts). The two engines spell and mean some things differently: RE2's `\s` is ASCII
 * whitespace where JavaScript's is Unicode's, RE2's `.` and negated classes take a whole code point where
 * JavaScript's take one UTF-16 code unit, RE2 reads `\z`, `\pL`, `\Q...\E` and `(?i)` where JavaScript reads letters
 * or a syntax error. So the pattern is parsed here as JavaScript reads it (ECMAScript's pattern grammar with its web
 * extensions, no `u` flag) and written out again as an RE2 pattern that means the same: every character, class and
 * escape becomes an explicit RE2 code point set, and what JavaScript reads in a way RE2 cannot run (lookaround,
 * backreferences) or that would read as something else in RE2's syntax is refused with the reason.
 *
 * UTF-16 code units: JavaScript without `u` matches one code unit at a time, so `.` takes half of an emoji. RE2 reads
 * code points, so each surrogate code unit is moved to its own code point in plane 15 ({@link unitPoint}), both in
 * the pattern and (route-pattern.ts) in a text that holds any: then every code unit of the text is one RE2 character.
 * Why one file of about 370 lines: it is one recursive-descent reader of one grammar, whose methods share the cursor;
 * the code unit sets it builds live in route-pattern-classes.ts. CDK-free, no I/O.
 */

import {
  CLASS_ESCAPES,
  complement,
  CONTROL_ESCAPES,
  hex,
  LINE_TERMINATORS,
  literalWidth,
  normalize,
  type Ranges,
  re2Class,
  unitPoint,
} from './route-pattern-classes';
import type { PatternNode } from './route-pattern-automaton';

export { unitPoint } from './route-pattern-classes';

/** What the translation refuses, with the reason (route-pattern.ts wraps it in RoutePatternError). */
export class PatternSyntaxRefusal extends Error {
  public constructor(reason: string) {
    super(reason);
    this.name = 'PatternSyntaxRefusal';
  }
}

/** The translated pattern and what the cost bound and masking need to know about it. */
export interface Re2Translation {
  readonly re2: string;
  /**
   * How many character-consuming instructions RE2's program has once counted repetitions are written out: the most
   * threads its automaton can have alive on one character (route-pattern.ts bounds it).
   */
  readonly width: number;
  /** The most code units a match can take (Infinity with `*`, `+` or `{n,}`). */
  readonly longest: number;
  /** True when the pattern has `^` or `$`. */
  readonly anchored: boolean;
  /** The pattern's tree over UTF-16 code units (route-pattern-automaton.ts runs it to find where matches are). */
  readonly tree: PatternNode;
}

/** One parsed atom: a set of code units, or RE2 text with its width. */
interface Piece {
  readonly re2: string;
  readonly node: PatternNode;
  readonly width: number;
  /** The most code units it matches. */
  readonly longest: number;
  /** True for `^`, `$`, `\b`, `\B`: JavaScript refuses a quantifier on them. */
  readonly assertion?: boolean;
  /** The code unit of a one-character atom (a literal run's width is narrower than its length). */
  readonly unit?: number;
}

/** A class of code units as a piece. */
const setPiece = (ranges: Ranges): Piece => ({
  re2: re2Class(ranges),
  width: 1,
  longest: 1,
  node: { k: 'set', ranges },
});

const RE2_ONLY_ESCAPE =
  'is not an escape in JavaScript (it stands for the letter itself there, and for something else in RE2: \\A, ' +
  '\\z, \\p{...}, \\Q...\\E, \\C); write the letter without the backslash, or what you mean in JavaScript syntax';

/** A recursive-descent reader of one pattern (ECMA-262 22.2.1 with Annex B.1.2, no `u` flag). */
class Reader {
  private i = 0;
  public anchored = false;
  private readonly names = new Set<string>();
  /** The code point of a `\u{...}` above U+FFFF just read (classEscape returns no ranges for it). */
  private pendingAstral = 0;

  public constructor(private readonly s: string) {}

  public translate(): Re2Translation {
    const { re2, width, longest, node } = this.disjunction();
    if (this.i < this.s.length) this.refuse(`an unmatched ")" at position ${this.i}`);
    return { re2, width, longest, anchored: this.anchored, tree: node };
  }

  private refuse(what: string): never {
    throw new PatternSyntaxRefusal(what);
  }

  private disjunction(): Piece {
    const alternatives = [this.alternative()];
    while (this.s[this.i] === '|') {
      this.i++;
      alternatives.push(this.alternative());
    }
    return {
      re2: alternatives.map((a) => a.re2).join('|'),
      width: alternatives.reduce((sum, a) => sum + a.width, 0),
      longest: Math.max(...alternatives.map((a) => a.longest)),
      node:
        alternatives.length === 1
          ? alternatives[0].node
          : { k: 'alt', items: alternatives.map((a) => a.node) },
    };
  }

  private alternative(): Piece {
    let re2 = '';
    let width = 0;
    let longest = 0;
    let literal: number[] = [];
    const items: PatternNode[] = [];
    while (this.i < this.s.length && this.s[this.i] !== '|' && this.s[this.i] !== ')') {
      const atom = this.atom();
      const quantified = this.quantifier(atom);
      re2 += quantified.re2;
      items.push(quantified.node);
      longest += quantified.longest;
      if (quantified === atom && atom.unit !== undefined) {
        literal.push(atom.unit);
        continue;
      }
      width += literalWidth(literal) + quantified.width;
      literal = [];
    }
    return { re2, width: width + literalWidth(literal), longest, node: { k: 'cat', items } };
  }

  private atom(): Piece {
    const c = this.s[this.i++];
    switch (c) {
      case '^':
      case '$':
        this.anchored = true;
        return {
          re2: c === '^' ? '\\A' : '\\z',
          width: 0,
          longest: 0,
          assertion: true,
          node: { k: 'assert', what: c === '^' ? 'begin' : 'end' },
        };
      case '.':
        return setPiece(complement(LINE_TERMINATORS));
      case '[':
        return setPiece(this.characterClass());
      case '(':
        return this.group();
      case '\\':
        return this.atomEscape();
      case '*':
      case '+':
      case '?':
        return this.refuse(`"${c}" at position ${this.i - 1} repeats nothing`);
      case '{':
        if (this.braceQuantifierAt(this.i - 1) !== undefined)
          this.refuse(`"{" at position ${this.i - 1} repeats nothing`);
        return this.unit(0x7b);
      default:
        return this.unit(c.charCodeAt(0));
    }
  }

  private unit(code: number): Piece {
    return {
      re2: hex(unitPoint(code)),
      width: 1,
      longest: 1,
      unit: code,
      node: { k: 'set', ranges: [[code, code]] },
    };
  }

  /** `{n}`, `{n,}` or `{n,m}` at `at`: [min, max (Infinity), length], or undefined when it is a literal `{`. */
  private braceQuantifierAt(at: number): readonly [number, number, number] | undefined {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.s.slice(at, at + 24));
    if (m === null) return undefined;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    return [min, max, m[0].length];
  }

  private quantifier(atom: Piece): Piece {
    const c = this.s[this.i];
    let min: number;
    let max: number;
    let text: string;
    if (c === '*' || c === '+' || c === '?') {
      [min, max, text] = [c === '+' ? 1 : 0, c === '?' ? 1 : Infinity, c];
      this.i++;
    } else if (c === '{' && this.braceQuantifierAt(this.i) !== undefined) {
      const [lo, hi, length] = this.braceQuantifierAt(this.i) ?? [0, 0, 0];
      if (lo > hi)
        this.refuse(`the repetition ${this.s.slice(this.i, this.i + length)} has its numbers out of order`);
      [min, max, text] = [lo, hi, this.s.slice(this.i, this.i + length)];
      this.i += length;
    } else {
      return atom;
    }
    if (atom.assertion === true)
      this.refuse(`${text} repeats an anchor or word boundary, which JavaScript refuses`);
    const lazy = this.s[this.i] === '?';
    if (lazy) {
      text += '?';
      this.i++;
    }
    const next = this.s[this.i];
    if (next === '+' && !text.endsWith('?'))
      this.refuse('it uses a possessive quantifier (*+, ++), which JavaScript does not have');
    if (next === '*' || next === '+' || next === '?')
      this.refuse(`"${next}" at position ${this.i} repeats a repetition`);
    // RE2 writes a counted repetition out as that many copies of its body; a loop is one copy.
    const copies = max === Infinity ? Math.max(min, 1) + (min > 0 ? 1 : 0) : Math.max(max, 1);
    return {
      re2: `(?:${atom.re2})${text}`,
      width: atom.width * copies,
      longest: atom.longest === 0 ? 0 : atom.longest * max,
      node: { k: 'repeat', item: atom.node, min, max, greedy: !lazy },
    };
  }

  private group(): Piece {
    const opened = this.i - 1;
    if (this.s[this.i] === '?') {
      const rest = this.s.slice(this.i, this.i + 4);
      if (/^\?<?[=!]/.test(rest)) this.refuse('it uses lookahead or lookbehind ((?=, (?!, (?<=, (?<!)');
      if (rest.startsWith('?:')) {
        this.i += 2;
      } else {
        const named = /^\?<([A-Za-z_$][A-Za-z0-9_$]*)>/.exec(this.s.slice(this.i, this.i + 300));
        if (named === null)
          this.refuse(
            `"(${rest}" at position ${this.i - 1} is no JavaScript group: inline flags such as (?i) and (?s) and ` +
              "RE2's (?P<name>...) are not JavaScript syntax; write the cases out ([Kk]) or use (?<name>...)",
          );
        if (this.names.has(named[1])) this.refuse(`the group name ${named[1]} is used twice`);
        this.names.add(named[1]);
        this.i += named[0].length;
      }
    }
    const inner = this.disjunction();
    if (this.s[this.i] !== ')') this.refuse(`the group opened at position ${opened} is never closed`);
    this.i++;
    return { re2: `(?:${inner.re2})`, width: inner.width, longest: inner.longest, node: inner.node };
  }

  private atomEscape(): Piece {
    const c = this.s[this.i];
    if (c === 'b' || c === 'B') {
      this.i++;
      const what = c === 'b' ? 'word' : 'not-word';
      return { re2: `\\${c}`, width: 0, longest: 0, assertion: true, node: { k: 'assert', what } };
    }
    const set = this.classEscape(false);
    if (set.length === 1 && set[0][0] === set[0][1]) return this.unit(set[0][0]);
    if (set.length === 0) return this.astral();
    return setPiece(set);
  }

  /** `\u{...}` above U+FFFF outside a class: its two code units (kfek reads `\u{...}` as a code point). */
  private astral(): Piece {
    const point = this.pendingAstral;
    this.pendingAstral = 0;
    const [high, low] = [0, 1].map((k) => this.unit(String.fromCodePoint(point).charCodeAt(k)));
    return {
      re2: `(?:${high.re2}${low.re2})`,
      width: 2,
      longest: 2,
      node: { k: 'cat', items: [high.node, low.node] },
    };
  }

  /**
   * The escape after a backslash, as code unit ranges (an empty list: a `\u{...}` above U+FFFF, outside a class
   * only). `inClass`: `\b` is a backspace there.
   */
  private classEscape(inClass: boolean): Ranges {
    const at = this.i - 1;
    const c = this.s[this.i++];
    if (c === undefined) this.refuse('it ends with a lone backslash');
    if (CLASS_ESCAPES[c] !== undefined) return CLASS_ESCAPES[c];
    if (CONTROL_ESCAPES[c] !== undefined) return [[CONTROL_ESCAPES[c], CONTROL_ESCAPES[c]]];
    if (inClass && c === 'b') return [[8, 8]];
    if (c === '0' && !/[0-9]/.test(this.s[this.i] ?? '')) return [[0, 0]];
    if (/[0-9]/.test(c) || c === 'k')
      this.refuse(
        `"\\${c}" at position ${at} is a backreference or a legacy octal escape (\\1, \\k<name>, \\012): RE2 runs ` +
          'no backreference; write a character as \\x41 or \\u0041',
      );
    if (c === 'c') {
      const letter = this.s[this.i];
      if (letter === undefined || !/[A-Za-z]/.test(letter))
        this.refuse(
          `"\\c" at position ${at} is not followed by a letter (JavaScript reads it as "\\c" itself)`,
        );
      this.i++;
      const code = letter.charCodeAt(0) % 32;
      return [[code, code]];
    }
    if (c === 'x') {
      const m = /^[0-9A-Fa-f]{2}/.exec(this.s.slice(this.i, this.i + 2));
      if (m === null) this.refuse(`"\\x" at position ${at} is not followed by two hex digits`);
      this.i += 2;
      const code = parseInt(m[0], 16);
      return [[code, code]];
    }
    if (c === 'u') return this.unicodeEscape(at, inClass);
    if (/[A-Za-z]/.test(c)) this.refuse(`"\\${c}" at position ${at} ${RE2_ONLY_ESCAPE}`);
    const code = c.charCodeAt(0);
    return [[code, code]];
  }

  private unicodeEscape(at: number, inClass: boolean): Ranges {
    const four = /^[0-9A-Fa-f]{4}/.exec(this.s.slice(this.i, this.i + 4));
    if (four !== null) {
      this.i += 4;
      const code = parseInt(four[0], 16);
      return [[code, code]];
    }
    const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(this.s.slice(this.i, this.i + 9));
    const point = braced === null ? NaN : parseInt(braced[1], 16);
    if (braced === null || point > 0x10ffff)
      this.refuse(`"\\u" at position ${at} is not followed by four hex digits or {a code point}`);
    this.i += braced[0].length;
    if (point <= 0xffff) return [[point, point]];
    if (inClass)
      this.refuse(
        `"\\u{${braced[1]}}" at position ${at} is above U+FFFF inside a class: without the u flag a class holds ` +
          'single UTF-16 code units; write it outside the class, as an alternative',
      );
    this.pendingAstral = point;
    return [];
  }

  /** After `[`: the class's code unit ranges (negated when it starts with `^`). */
  private characterClass(): Ranges {
    const negated = this.s[this.i] === '^';
    if (negated) this.i++;
    const ranges: Array<readonly [number, number]> = [];
    while (this.s[this.i] !== ']') {
      if (this.i >= this.s.length) this.refuse('a "[" is never closed');
      const lo = this.classAtom();
      if (this.s[this.i] === '-' && this.s[this.i + 1] !== ']' && this.i + 1 < this.s.length) {
        this.i++;
        const hi = this.classAtom();
        const single = (r: Ranges): boolean => r.length === 1 && r[0][0] === r[0][1];
        if (single(lo) && single(hi)) {
          if (lo[0][0] > hi[0][0]) this.refuse(`a class range at position ${this.i} is out of order`);
          ranges.push([lo[0][0], hi[0][0]]);
        } else {
          // Web-compatibility rule: a range with a class escape at either end is both ends and a "-".
          ranges.push(...lo, ...hi, [0x2d, 0x2d]);
        }
      } else {
        ranges.push(...lo);
      }
    }
    this.i++;
    return negated ? complement(ranges) : normalize(ranges);
  }

  private classAtom(): Ranges {
    const c = this.s[this.i++];
    if (c !== '\\') {
      const code = c.charCodeAt(0);
      return [[code, code]];
    }
    return this.classEscape(true);
  }
}

/** The RE2 pattern that means what `source` means as a JavaScript RegExp without flags. */
export function translateToRe2(source: string): Re2Translation {
  return new Reader(source).translate();
}
