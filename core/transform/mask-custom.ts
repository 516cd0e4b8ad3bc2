/**
 * A route's custom mask patterns (docs/teams-and-routes.md "Masking"), run after the built-in detectors in the order
 * the profile lists them. Each pattern sees the text as the detectors before it left it, with every marker standing
 * as one character, U+FFFC (the object replacement character: what `.`, `\S` or `[^x]` match, no letter, digit or
 * space): a pattern can take a marker into its match (`password=\S+` after `password=[masked:email]` masks the whole),
 * but never matches inside one. Why: the letters of `[masked:email]` are kfek's, not the app's, and a pattern that
 * could match them would write markers into markers, each mask multiplying what the one before wrote (issue 39);
 * with markers opaque, no line grows more than route-pattern-mask.ts `MAX_MASK_GROWTH` times whatever the masks.
 * Where the markers are is kept beside the text, never read back from it, so a text that holds U+FFFC itself is
 * masked as any other. Pure: no SDK, no I/O.
 */
import type { RoutePattern } from '../contracts/route-pattern';

/** What a marker is to the patterns after it. */
const MARKER_CHAR = '\ufffc';

/** A text as the custom patterns see it: markers as one character each, and where they are. */
interface View {
  readonly text: string;
  /** Ascending positions in `text` of the characters that stand for markers. */
  readonly at: readonly number[];
  /** The marker each of `at` stands for. */
  readonly markers: readonly string[];
}

/** `text` with every occurrence of `builtIn` (the built-in detectors' markers) as one character. */
function viewOf(text: string, builtIn: RegExp | undefined): View {
  if (builtIn === undefined) return { text, at: [], markers: [] };
  const at: number[] = [];
  const markers: string[] = [];
  let out = '';
  let copiedTo = 0;
  builtIn.lastIndex = 0;
  for (let m = builtIn.exec(text); m !== null; m = builtIn.exec(text)) {
    out += text.slice(copiedTo, m.index);
    at.push(out.length);
    markers.push(m[0]);
    out += MARKER_CHAR;
    copiedTo = m.index + m[0].length;
  }
  return { text: out + text.slice(copiedTo), at, markers };
}

/** The view with each span of `spans` (over `view.text`) replaced by a character standing for `marker`. */
function replaced(view: View, spans: readonly number[], marker: string): View {
  const at: number[] = [];
  const markers: string[] = [];
  let out = '';
  let copiedTo = 0;
  let m = 0;
  const keepUpTo = (end: number): void => {
    for (; m < view.at.length && view.at[m] < end; m++) {
      at.push(out.length + view.at[m] - copiedTo);
      markers.push(view.markers[m]);
    }
  };
  for (let k = 0; k < spans.length; k += 2) {
    keepUpTo(spans[k]);
    out += view.text.slice(copiedTo, spans[k]);
    // A marker inside the match is masked with it.
    while (m < view.at.length && view.at[m] < spans[k + 1]) m++;
    at.push(out.length);
    markers.push(marker);
    out += MARKER_CHAR;
    copiedTo = spans[k + 1];
  }
  keepUpTo(view.text.length);
  return { text: out + view.text.slice(copiedTo), at, markers };
}

/** The text a view stands for: each marker character as its marker. */
function written(view: View): string {
  let out = '';
  let copiedTo = 0;
  for (let m = 0; m < view.at.length; m++) {
    out += view.text.slice(copiedTo, view.at[m]) + view.markers[m];
    copiedTo = view.at[m] + 1;
  }
  return out + view.text.slice(copiedTo);
}

/**
 * The custom patterns, in order, over `text` (the built-in detectors' output); `builtIn` finds their markers in it,
 * undefined when they masked nothing. `count(i, n)`: pattern `i` masked `n` values.
 */
export function maskCustom(
  text: string,
  patterns: readonly RoutePattern[],
  markers: readonly string[],
  builtIn: RegExp | undefined,
  count: (i: number, n: number) => void,
): string {
  let view = viewOf(text, builtIn);
  let changed = false;
  for (let i = 0; i < patterns.length; i++) {
    const spans = patterns[i].spans(view.text);
    if (spans.length === 0) continue;
    count(i, spans.length / 2);
    view = replaced(view, spans, markers[i]);
    changed = true;
  }
  return changed ? written(view) : text;
}

/** What finds the markers of `markers` (the built-in detectors') in a text. */
export function markerFinder(markers: readonly string[]): RegExp | undefined {
  if (markers.length === 0) return undefined;
  return new RegExp(markers.map((m) => m.replace(/[[\]]/g, '\\$&')).join('|'), 'g');
}
