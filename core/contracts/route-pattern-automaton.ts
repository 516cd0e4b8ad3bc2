/**
 * Where a route pattern's matches are (a mask needs the spans; a route's drop and join rules only ask whether there
 * is one), in time linear in the line for every pattern, with no position read twice. Why kfek does this itself:
 * re2js answers "is there a match" with its lazy DFA, but finds where with its thread-per-instruction automaton (Pike
 * VM) or its backtracker, 20-50x its DFA per character (`npm run bench:processing`: a 64 KiB line of long e-mail
 * shaped matches cost 23x an ordinary line through `[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[a-z]{2,6}`). And any search
 * that finds one leftmost-first match after another (re2js, RE2, Rust's regex) reads again, after each match, what it
 * read ahead to decide it: `a[^!]*!|b` reads to the end of the line after every `b` of `ab ab ab ...` (64 KiB: 20
 * s), `\w+\d|\w` after every letter of a long word (59 s).
 *
 * Two passes over a line that matches (route-pattern.ts asks re2js's DFA first):
 * 1. Right to left, a lazy DFA over sets of program positions: at each position, the positions from which a match
 *    can still be completed reading from there on ("live"). Each set is a state, made once, with its transitions
 *    cached, so a character costs one lookup.
 * 2. Left to right, a walk: a match starts at the first position where the program's start is live, and follows, at
 *    each character, the most preferred way (JavaScript's leftmost-first order) that is still live, until the most
 *    preferred live way is to end the match. Every way it does not take is either less preferred or cannot complete,
 *    so this is the match a backtracking engine reports, found without reading ahead; the next search starts where it
 *    ended. The walk's steps are cached per live set too.
 *
 * The program reads UTF-16 code units, as JavaScript without `u` does. CDK-free, no I/O.
 */
import type { Ranges } from './route-pattern-classes';

/**
 * A pattern as a tree over UTF-16 code units, as JavaScript reads it (route-pattern-syntax.ts builds it): a set of
 * code units, a sequence, alternatives in order of preference, a repetition (`max` Infinity for `*`, `+`, `{n,}`), or
 * an assertion (`^`, `$`, `\b`, `\B`).
 */
export type PatternNode =
  | { readonly k: 'set'; readonly ranges: Ranges }
  | { readonly k: 'cat'; readonly items: readonly PatternNode[] }
  | { readonly k: 'alt'; readonly items: readonly PatternNode[] }
  | {
      readonly k: 'repeat';
      readonly item: PatternNode;
      readonly min: number;
      readonly max: number;
      readonly greedy: boolean;
    }
  | { readonly k: 'assert'; readonly what: 'begin' | 'end' | 'word' | 'not-word' };

/** JavaScript's `\w` (ASCII), which decides `\b`. */
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const inRanges = (ranges: Ranges, unit: number): boolean =>
  ranges.some(([lo, hi]) => unit >= lo && unit <= hi);

/** The code units split into classes no set of the pattern (nor `\w`) tells apart; the DFA steps on a class. */
class UnitClasses {
  private readonly starts: readonly number[];
  private readonly low = new Uint16Array(256);
  readonly count: number;
  readonly word: Uint8Array;

  constructor(sets: readonly Ranges[]) {
    const bounds = new Set([0]);
    for (const ranges of [...sets, WORD]) {
      for (const [lo, hi] of ranges) {
        bounds.add(lo);
        if (hi < 0xffff) bounds.add(hi + 1);
      }
    }
    this.starts = [...bounds].sort((a, b) => a - b);
    this.count = this.starts.length;
    this.word = this.membership(WORD);
    for (let u = 0; u < 256; u++) this.low[u] = this.search(u);
  }

  of(unit: number): number {
    return unit < 256 ? this.low[unit] : this.search(unit);
  }

  /** Per class: 1 when the class is in `ranges`. */
  membership(ranges: Ranges): Uint8Array {
    return Uint8Array.from(this.starts, (start) => (inRanges(ranges, start) ? 1 : 0));
  }

  private search(unit: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= unit) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

type Assertion = Extract<PatternNode, { k: 'assert' }>['what'];
type Inst =
  | { op: 'set'; member: Uint8Array; out: number }
  | { op: 'split'; x: number; y: number }
  | { op: 'assert'; what: Assertion; out: number }
  | { op: 'match' };

/** A Thompson program: `split` prefers `x`; the entry point is what {@link compile} returns. */
function compile(tree: PatternNode, classes: UnitClasses): { insts: Inst[]; start: number } {
  const insts: Inst[] = [{ op: 'match' }];
  const add = (inst: Inst): number => insts.push(inst) - 1;
  const split = (prefer: number, other: number, greedy: boolean): Inst =>
    greedy ? { op: 'split', x: prefer, y: other } : { op: 'split', x: other, y: prefer };
  const node = (n: PatternNode, next: number): number => {
    switch (n.k) {
      case 'set':
        return add({ op: 'set', member: classes.membership(n.ranges), out: next });
      case 'cat':
        return n.items.reduceRight((to, item) => node(item, to), next);
      case 'alt':
        return n.items
          .map((item) => node(item, next))
          .reduceRight((rest, entry) => add({ op: 'split', x: entry, y: rest }));
      case 'assert':
        return add({ op: 'assert', what: n.what, out: next });
      case 'repeat': {
        let tail = next;
        if (n.max === Infinity) {
          tail = add({ op: 'split', x: -1, y: -1 });
          insts[tail] = split(node(n.item, tail), next, n.greedy);
        } else {
          for (let k = n.min; k < n.max; k++) tail = add(split(node(n.item, tail), next, n.greedy));
        }
        for (let k = 0; k < n.min; k++) tail = node(n.item, tail);
        return tail;
      }
    }
  };
  return { insts, start: node(tree, 0) };
}

function setsOf(n: PatternNode, out: Ranges[] = []): Ranges[] {
  if (n.k === 'set') out.push(n.ranges);
  else if (n.k === 'cat' || n.k === 'alt') n.items.forEach((item) => setsOf(item, out));
  else if (n.k === 'repeat') setsOf(n.item, out);
  return out;
}

/** What an assertion at a position can see of the character before it. */
const AT_START = 0;
const AFTER_WORD = 1;
const AFTER_OTHER = 2;

/**
 * Per position p of a text: the program positions from which a match can still be completed reading from p on
 * (`live[pc]` 1), computed right to left. A lazy DFA: each set is a state, made once, with its transitions cached.
 */
interface LiveSet {
  /** Where the set is in its searcher's list of sets (a line's positions are kept as these, in an Int32Array). */
  readonly index: number;
  readonly live: Uint8Array;
  /** Per class of the character before (`cls * 3 + context`): the index of the set one position to the left, + 1. */
  readonly before: Int32Array;
  /**
   * The walk's cached steps into this set: per pc, per `cls * 3 + context`, the next pc + 2, or 1 for "the match ends
   * here" (0: not computed yet). Rows are made for the pcs a walk reaches.
   */
  readonly steps: Steps;
}

type Steps = Array<Int32Array | undefined>;

/** The most live sets (and walk steps) cached per pattern before the caches start again. */
const MAX_STATES = 4_096;

/** A pattern's program, and how it is searched: right to left for what can still match, then left to right. */
class Searcher {
  private readonly insts: Inst[];
  private readonly start: number;
  /** Per instruction: the split and assert instructions that lead to it without reading a character. */
  private readonly preds: number[][];
  private readonly sets = new Map<string, LiveSet>();
  /** The live sets made since the caches last started again, by index. */
  private readonly list: LiveSet[] = [];
  /** Per live set, by index: 1 when a match can start there (the program's start is live). */
  private readonly startable: number[] = [];
  private readonly ends: Array<LiveSet | undefined> = [];
  /** The walk's cached steps at the text's end (the others are cached on the live set after the position). */
  private readonly endSteps: Steps = [];

  constructor(
    tree: PatternNode,
    private readonly classes: UnitClasses,
  ) {
    ({ insts: this.insts, start: this.start } = compile(tree, classes));
    this.preds = this.insts.map(() => []);
    this.insts.forEach((inst, pc) => {
      const to = inst.op === 'split' ? [inst.x, inst.y] : inst.op === 'assert' ? [inst.out] : [];
      for (const target of to) this.preds[target].push(pc);
    });
  }

  private holds(what: Assertion, context: number, cls: number): boolean {
    const end = cls === this.classes.count;
    const boundary = (context === AFTER_WORD) !== (!end && this.classes.word[cls] === 1);
    if (what === 'begin') return context === AT_START;
    if (what === 'end') return end;
    return what === 'word' ? boundary : !boundary;
  }

  /** The live set at a position where the character is of class `cls` (the end: `classes.count`). */
  private liveAt(after: LiveSet | undefined, cls: number, context: number): LiveSet {
    const slot = cls * 3 + context;
    const known = after === undefined ? this.ends[context] : this.list[after.before[slot] - 1];
    if (known !== undefined) return known;
    const live = new Uint8Array(this.insts.length);
    const queue: number[] = [];
    this.insts.forEach((inst, pc) => {
      const reads =
        inst.op === 'set' && after !== undefined && inst.member[cls] === 1 && after.live[inst.out] === 1;
      if (inst.op === 'match' || reads) queue.push(pc);
    });
    for (const pc of queue) live[pc] = 1;
    while (queue.length > 0) {
      const pc = queue.pop() as number;
      for (const from of this.preds[pc]) {
        const inst = this.insts[from];
        if (live[from] === 1 || (inst.op === 'assert' && !this.holds(inst.what, context, cls))) continue;
        live[from] = 1;
        queue.push(from);
      }
    }
    const key = live.join('');
    let made = this.sets.get(key);
    if (made === undefined) {
      const index = this.list.length;
      made = { index, live, before: new Int32Array((this.classes.count + 1) * 3), steps: [] };
      this.sets.set(key, made);
      this.list.push(made);
      this.startable.push(live[this.start]);
    }
    if (after === undefined) this.ends[context] = made;
    else after.before[slot] = made.index + 1;
    return made;
  }

  /** Starts the caches again (between lines only: a line's positions hold indexes into them). */
  private forget(): void {
    this.sets.clear();
    this.list.length = 0;
    this.startable.length = 0;
    this.ends.length = 0;
    this.endSteps.length = 0;
  }

  /**
   * One step of the walk at a position: from `pc`, the first way in order of preference that can still complete a
   * match (`next` says which can): -1 when that is to end the match here, else the instruction after the character.
   */
  private step(pc: number, next: LiveSet | undefined, cls: number, context: number): number {
    const seen = new Uint8Array(this.insts.length);
    const first = (at: number): number | undefined => {
      if (seen[at] === 1) return undefined;
      seen[at] = 1;
      const inst = this.insts[at];
      switch (inst.op) {
        case 'match':
          return -1;
        case 'set':
          return next !== undefined && inst.member[cls] === 1 && next.live[inst.out] === 1
            ? inst.out
            : undefined;
        case 'split':
          return first(inst.x) ?? first(inst.y);
        case 'assert':
          return this.holds(inst.what, context, cls) ? first(inst.out) : undefined;
      }
    };
    // The walk only follows live instructions, so one way always completes.
    const to = first(pc) ?? -1;
    const steps = next?.steps ?? this.endSteps;
    const row = steps[pc] ?? new Int32Array((this.classes.count + 1) * 3);
    steps[pc] = row;
    row[cls * 3 + context] = to + 2;
    return to;
  }

  spans(text: string): number[] {
    if (this.list.length >= MAX_STATES) this.forget();
    const n = text.length;
    const { classes, list } = this;
    const word = classes.word;
    // Per position: the class of its character and what an assertion there sees before it, as one slot
    // (`cls * 3 + context`); the end's class is `classes.count`.
    const slots = new Int32Array(n + 1);
    let before = AT_START;
    for (let p = 0; p < n; p++) {
      const cls = classes.of(text.charCodeAt(p));
      slots[p] = cls * 3 + before;
      before = word[cls] === 1 ? AFTER_WORD : AFTER_OTHER;
    }
    slots[n] = classes.count * 3 + before;
    // Right to left: what can still match from each position, as the index of its live set.
    const at = new Int32Array(n + 1);
    let set = this.liveAt(undefined, classes.count, before);
    at[n] = set.index;
    for (let p = n - 1; p >= 0; p--) {
      const slot = slots[p];
      const known = set.before[slot];
      set = known !== 0 ? list[known - 1] : this.liveAt(set, (slot / 3) | 0, slot % 3);
      at[p] = set.index;
    }
    // Left to right: a match starts at the first position from which one can complete, and follows the most preferred
    // way that still can: no position is read twice, whatever the pattern.
    const spans: number[] = [];
    const { startable } = this;
    for (let p = 0; p <= n; p++) {
      if (startable[at[p]] !== 1) continue;
      let pc = this.start;
      let q = p;
      for (;;) {
        const next = q < n ? list[at[q + 1]] : undefined;
        const slot = slots[q];
        const known = (next?.steps ?? this.endSteps)[pc]?.[slot] ?? 0;
        const to = known !== 0 ? known - 2 : this.step(pc, next, (slot / 3) | 0, slot % 3);
        if (to < 0) break;
        pc = to;
        q++;
      }
      // An empty match is skipped, and the search goes on one code unit further (String.prototype.replace's rule).
      if (q > p) {
        spans.push(p, q);
        p = q - 1;
      }
    }
    return spans;
  }
}

/** Finds the spans of a pattern's matches (see the file's comment). Stateless to its callers. */
export class PatternAutomaton {
  private readonly searcher: Searcher;

  constructor(tree: PatternNode) {
    this.searcher = new Searcher(tree, new UnitClasses(setsOf(tree)));
  }

  /**
   * Every non-empty match in `text`, leftmost-first and non-overlapping, as `String.prototype.replace` with a `g`
   * RegExp takes them (an empty match is skipped, and the search goes on one code unit further): start and end of
   * the first, of the second, and so on, in one flat list (a line of one-character matches makes no pair objects).
   */
  spans(text: string): number[] {
    return this.searcher.spans(text);
  }
}
